#pragma once
// The per-sample signal ratios of torchmetrics' audio metrics, in decibels, each over the last
// dimension (time) of same-shaped float tensors [..., time]; the result has the leading shape
// [...] and is float64. eps is the machine epsilon of the inputs' dtype, added to both sides of
// each ratio as torchmetrics does, so silence against silence is 0 dB rather than NaN.
#include <ATen/core/Tensor.h>

namespace fulgur::metrics {

// 10 log10(|target|^2 / |target - preds|^2).
at::Tensor signal_noise_ratio(const at::Tensor& preds, const at::Tensor& target, bool zero_mean,
                              double eps);

// SI-SDR: target rescaled by the projection of preds on it (alpha = <preds, target> /
// |target|^2), then 10 log10(|alpha target|^2 / |alpha target - preds|^2). SI-SNR is this with
// zero_mean.
at::Tensor scale_invariant_signal_distortion_ratio(const at::Tensor& preds,
                                                   const at::Tensor& target, bool zero_mean,
                                                   double eps);

// SA-SDR over [..., speakers, time]: the energies summed over the speakers before the ratio,
// one alpha shared by every speaker when scale_invariant. The result is [...].
at::Tensor source_aggregated_signal_distortion_ratio(const at::Tensor& preds,
                                                     const at::Tensor& target, bool scale_invariant,
                                                     bool zero_mean, double eps);

}  // namespace fulgur::metrics
