#pragma once
// ScaleInvariantSignalDistortionRatio (torchmetrics' SI-SDR): the mean over the samples of
// 10 log10(|a target|^2 / |a target - preds|^2) in dB, where a = <preds, target> / |target|^2
// scales the target to its best fit, so a louder or quieter estimate scores the same; each
// sample the last dimension of [..., time] inputs; zero_mean subtracts each signal's mean
// first. States: "sum_si_sdr" and "total".
#include "fulgur/metrics/audio/signal_ratio_metric.h"

namespace fulgur::metrics {

struct ScaleInvariantSignalDistortionRatioOptions {
  bool zero_mean = false;
};

class ScaleInvariantSignalDistortionRatio : public SignalRatioMetric {
 public:
  explicit ScaleInvariantSignalDistortionRatio(
      ScaleInvariantSignalDistortionRatioOptions options = {});

 protected:
  at::Tensor ratios(const at::Tensor& preds, const at::Tensor& target, double eps) const override;

 private:
  bool zero_mean_;
};

}  // namespace fulgur::metrics
