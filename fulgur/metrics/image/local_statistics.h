#pragma once
// The windowed statistics SSIM and UQI compare images by: under a normalised window around
// each pixel, the means of preds and target, their variances (clamped at 0 against rounding)
// and their covariance. The inputs [N, C, H, W] (or [N, C, D, H, W]) are reflect-padded by half
// the window first, so the maps keep the inputs' shape; one grouped convolution computes all
// five.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace fulgur::metrics {

struct LocalStatistics {
  at::Tensor mean_preds, mean_target, var_preds, var_target, covariance;
};

// A [channels, 1, size, ...] window over `spatial_dims` dimensions, float64: the outer
// product of a Gaussian of `sigma` sampled at the size's integer offsets, normalised, or a
// uniform box when sigma is unset (0).
at::Tensor image_window(int64_t channels, int64_t spatial_dims, int64_t size, double sigma,
                        const c10::Device& device);

// `preds` and `target` float64 of one shape; `window` from image_window, of odd size, at most
// twice each spatial size less one (reflect padding's limit; callers check).
LocalStatistics local_statistics(const at::Tensor& preds, const at::Tensor& target,
                                 const at::Tensor& window);

}  // namespace fulgur::metrics
