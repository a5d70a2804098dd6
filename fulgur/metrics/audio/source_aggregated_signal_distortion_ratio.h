#pragma once
// SourceAggregatedSignalDistortionRatio (torchmetrics' SA-SDR): for a mixture's separated
// sources, [..., speakers, time], 10 log10 of the target energy summed over the speakers over
// the distortion energy summed likewise, in dB, so a quiet speaker's failure weighs by its
// energy rather than dominating; scale_invariant rescales every speaker's target by one shared
// best-fit factor; zero_mean subtracts each signal's mean first. The mean over the mixtures
// ([...]). States: "msum" and "mnum".
#include "fulgur/metrics/audio/signal_ratio_metric.h"

namespace fulgur::metrics {

struct SourceAggregatedSignalDistortionRatioOptions {
  bool scale_invariant = true;
  bool zero_mean = false;
};

class SourceAggregatedSignalDistortionRatio : public SignalRatioMetric {
 public:
  explicit SourceAggregatedSignalDistortionRatio(
      SourceAggregatedSignalDistortionRatioOptions options = {});

 protected:
  at::Tensor ratios(const at::Tensor& preds, const at::Tensor& target, double eps) const override;

 private:
  SourceAggregatedSignalDistortionRatioOptions options_;
};

}  // namespace fulgur::metrics
