#include "fulgur/metrics/audio/scale_invariant_signal_distortion_ratio.h"

#include "fulgur/metrics/audio/signal_ratios.h"

namespace fulgur::metrics {

ScaleInvariantSignalDistortionRatio::ScaleInvariantSignalDistortionRatio(
    ScaleInvariantSignalDistortionRatioOptions options)
    : SignalRatioMetric("ScaleInvariantSignalDistortionRatio", "sum_si_sdr", "total", 1),
      zero_mean_(options.zero_mean) {}

at::Tensor ScaleInvariantSignalDistortionRatio::ratios(const at::Tensor& preds,
                                                       const at::Tensor& target, double eps) const {
  return scale_invariant_signal_distortion_ratio(preds, target, zero_mean_, eps);
}

}  // namespace fulgur::metrics
