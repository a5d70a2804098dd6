#include "fulgur/metrics/audio/signal_ratios.h"

#include <ATen/ATen.h>

#include <utility>

namespace fulgur::metrics {
namespace {

std::pair<at::Tensor, at::Tensor> centred(const at::Tensor& preds, const at::Tensor& target,
                                          bool zero_mean) {
  if (!zero_mean) return {preds, target};
  return {preds - preds.mean(-1, /*keepdim=*/true), target - target.mean(-1, /*keepdim=*/true)};
}

at::Tensor decibels(const at::Tensor& signal_energy, const at::Tensor& noise_energy, double eps) {
  return 10 * ((signal_energy + eps) / (noise_energy + eps)).log10();
}

}  // namespace

at::Tensor signal_noise_ratio(const at::Tensor& preds, const at::Tensor& target, bool zero_mean,
                              double eps) {
  const auto [p, t] = centred(preds, target, zero_mean);
  return decibels(t.square().sum(-1), (t - p).square().sum(-1), eps);
}

at::Tensor scale_invariant_signal_distortion_ratio(const at::Tensor& preds,
                                                   const at::Tensor& target, bool zero_mean,
                                                   double eps) {
  const auto [p, t] = centred(preds, target, zero_mean);
  const auto alpha =
      ((p * t).sum(-1, /*keepdim=*/true) + eps) / (t.square().sum(-1, /*keepdim=*/true) + eps);
  const auto scaled = alpha * t;
  return decibels(scaled.square().sum(-1), (scaled - p).square().sum(-1), eps);
}

at::Tensor source_aggregated_signal_distortion_ratio(const at::Tensor& preds,
                                                     const at::Tensor& target, bool scale_invariant,
                                                     bool zero_mean, double eps) {
  auto [p, t] = centred(preds, target, zero_mean);
  const std::vector<int64_t> speakers_and_time{-2, -1};
  if (scale_invariant) {
    t = t * (((p * t).sum(speakers_and_time, /*keepdim=*/true) + eps) /
             (t.square().sum(speakers_and_time, /*keepdim=*/true) + eps));
  }
  return decibels(t.square().sum(speakers_and_time), (t - p).square().sum(speakers_and_time), eps);
}

}  // namespace fulgur::metrics
