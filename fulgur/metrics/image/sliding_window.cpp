#include "fulgur/metrics/image/sliding_window.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {
namespace {

at::Tensor mirror_dim(const at::Tensor& x, int64_t dim, int64_t before, int64_t after) {
  std::vector<at::Tensor> parts;
  if (before > 0) parts.push_back(x.narrow(dim, 0, before).flip({dim}));
  parts.push_back(x);
  if (after > 0) parts.push_back(x.narrow(dim, x.size(dim) - after, after).flip({dim}));
  return parts.size() == 1 ? x : at::cat(parts, dim);
}

}  // namespace

at::Tensor symmetric_pad(const at::Tensor& images, int64_t top, int64_t bottom, int64_t left,
                         int64_t right) {
  return mirror_dim(mirror_dim(images, 2, top, bottom), 3, left, right);
}

at::Tensor box_mean(const at::Tensor& images, int64_t window, WindowBorder border) {
  const int64_t before = window / 2, after = window - 1 - window / 2;
  const auto padded = border == WindowBorder::Symmetric
                          ? symmetric_pad(images, before, after, before, after)
                          : at::constant_pad_nd(images, {before, after, before, after}, 0.0);
  const int64_t channels = images.size(1);
  const auto kernel = at::full({channels, 1, window, window},
                               1.0 / static_cast<double>(window * window), images.options());
  const std::vector<int64_t> ones{1, 1}, zeros{0, 0};
  return at::conv2d(padded, kernel, at::Tensor(), ones, at::IntArrayRef(zeros), ones, channels);
}

void check_window_size(const std::string& metric, int64_t window_size) {
  if (window_size < 1) {
    throw ConfigError(
        fmt::format("{}: window_size must be a positive integer, not {}", metric, window_size));
  }
}

int64_t window_crop(int64_t window) {
  int64_t half = window / 2;
  if (window % 2 == 1 && half % 2 == 1) ++half;  // x.5 rounds to the even neighbour
  return half;
}

at::Tensor windowed_rmse_map(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t window) {
  const auto [p, t] = regression_pair(metric, preds, target);
  if (p.dim() != 4) {
    throw MetricError(fmt::format("{}: preds and target must be [N, C, H, W], not [{}]", metric,
                                  fmt::join(p.sizes(), ", ")));
  }
  const int64_t crop = window_crop(window);
  if (p.size(2) <= 2 * crop || p.size(3) <= 2 * crop) {
    throw MetricError(fmt::format(
        "{}: images of {}x{} are too small for window_size {}: the map is cropped by {} on "
        "each side, so height and width must exceed {}",
        metric, p.size(2), p.size(3), window, crop, 2 * crop));
  }
  return box_mean((t - p).square(), window, WindowBorder::Symmetric).sqrt();
}

}  // namespace fulgur::metrics
