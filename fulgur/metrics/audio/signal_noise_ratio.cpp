#include "fulgur/metrics/audio/signal_noise_ratio.h"

#include "fulgur/metrics/audio/signal_ratios.h"

namespace fulgur::metrics {

SignalNoiseRatio::SignalNoiseRatio(SignalNoiseRatioOptions options)
    : SignalRatioMetric("SignalNoiseRatio", "sum_snr", "total", 1), zero_mean_(options.zero_mean) {}

at::Tensor SignalNoiseRatio::ratios(const at::Tensor& preds, const at::Tensor& target,
                                    double eps) const {
  return signal_noise_ratio(preds, target, zero_mean_, eps);
}

}  // namespace fulgur::metrics
