#include "fulgur/metrics/audio/scale_invariant_signal_noise_ratio.h"

#include "fulgur/metrics/audio/signal_ratios.h"

namespace fulgur::metrics {

ScaleInvariantSignalNoiseRatio::ScaleInvariantSignalNoiseRatio()
    : SignalRatioMetric("ScaleInvariantSignalNoiseRatio", "sum_si_snr", "total", 1) {}

at::Tensor ScaleInvariantSignalNoiseRatio::ratios(const at::Tensor& preds, const at::Tensor& target,
                                                  double eps) const {
  return scale_invariant_signal_distortion_ratio(preds, target, /*zero_mean=*/true, eps);
}

}  // namespace fulgur::metrics
