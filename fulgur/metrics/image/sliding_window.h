#pragma once
// What torchmetrics' sliding-window image metrics (RMSE-SW, RASE, SCC) share: a box mean over a
// window x window square around each pixel of [N, C, H, W], per channel, keeping the shape.
// The window covers window / 2 pixels before and window - 1 - window / 2 after (scipy's
// uniform_filter alignment, so even windows work). Outside the image it reads either the
// image mirrored with its edge repeated (scipy's mode "reflect": d c b a | a b c d | d c b a)
// or zeros.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace fulgur::metrics {

enum class WindowBorder { Symmetric, Zeros };

// `images` float64 [N, C, H, W]; window >= 1, and for Symmetric at most each spatial size.
at::Tensor box_mean(const at::Tensor& images, int64_t window, WindowBorder border);

// `images` padded along H by (top, bottom) and along W by (left, right), mirrored with the
// edge repeated; each pad at most the size it mirrors.
at::Tensor symmetric_pad(const at::Tensor& images, int64_t top, int64_t bottom, int64_t left,
                         int64_t right);

// ConfigError naming `metric` unless window_size is positive.
void check_window_size(const std::string& metric, int64_t window_size);

// torchmetrics' border crop: round(window / 2) with Python's round (halves to even).
int64_t window_crop(int64_t window);

// The RMSE map of RMSE-SW and RASE: sqrt of the box mean (mirrored border) of the squared
// error, [N, C, H, W] float64. MetricError naming `metric` unless preds and target are one
// [N, C, H, W] shape whose H and W exceed twice window_crop(window) (so the cropped map keeps
// a pixel).
at::Tensor windowed_rmse_map(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t window);

}  // namespace fulgur::metrics
