#include "fulgur/metrics/audio/source_aggregated_signal_distortion_ratio.h"

#include "fulgur/metrics/audio/signal_ratios.h"

namespace fulgur::metrics {

SourceAggregatedSignalDistortionRatio::SourceAggregatedSignalDistortionRatio(
    SourceAggregatedSignalDistortionRatioOptions options)
    : SignalRatioMetric("SourceAggregatedSignalDistortionRatio", "msum", "mnum", 2),
      options_(options) {}

at::Tensor SourceAggregatedSignalDistortionRatio::ratios(const at::Tensor& preds,
                                                         const at::Tensor& target,
                                                         double eps) const {
  return source_aggregated_signal_distortion_ratio(preds, target, options_.scale_invariant,
                                                   options_.zero_mean, eps);
}

}  // namespace fulgur::metrics
