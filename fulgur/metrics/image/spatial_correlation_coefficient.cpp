#include "fulgur/metrics/image/spatial_correlation_coefficient.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/sliding_window.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

SpatialCorrelationCoefficient::SpatialCorrelationCoefficient(
    SpatialCorrelationCoefficientOptions options)
    : Metric("SpatialCorrelationCoefficient"), window_size_(options.window_size) {
  check_window_size(name(), window_size_);
  auto filter = options.high_pass_filter.defined()
                    ? options.high_pass_filter.detach().to(at::kCPU, at::kDouble)
                    : at::tensor({-1., -1., -1., -1., 8., -1., -1., -1., -1.}).reshape({3, 3});
  if (filter.dim() != 2 || filter.numel() == 0) {
    throw ConfigError(fmt::format("{}: high_pass_filter must be a non-empty 2-D kernel, not [{}]",
                                  name(), fmt::join(filter.sizes(), ", ")));
  }
  filter_ = filter.flip({0, 1}).contiguous();  // a convolution, not a correlation
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = add_state("scc_score", at::zeros({}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

at::Tensor SpatialCorrelationCoefficient::high_pass(const at::Tensor& images) const {
  const int64_t kh = filter_.size(0), kw = filter_.size(1);
  const auto padded = symmetric_pad(images, (kh - 1) / 2, kh / 2, (kw - 1) / 2, kw / 2);
  const int64_t channels = images.size(1);
  const auto kernel = filter_.to(images.device()).expand({channels, 1, kh, kw}).contiguous();
  const std::vector<int64_t> ones{1, 1}, zeros{0, 0};
  return 2 * at::conv2d(padded, kernel, at::Tensor(), ones, at::IntArrayRef(zeros), ones, channels);
}

void SpatialCorrelationCoefficient::update_state(const at::Tensor& preds,
                                                 const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() == 3) {
    p = p.unsqueeze(1);
    t = t.unsqueeze(1);
  }
  if (p.dim() != 4) {
    fail(fmt::format("preds and target must be [N, C, H, W] or [N, H, W], not [{}]",
                     fmt::join(preds.sizes(), ", ")));
  }
  const int64_t min_size = std::max(filter_.size(0), filter_.size(1)) / 2;
  if (p.size(2) < window_size_ || p.size(3) < window_size_ || p.size(2) < min_size ||
      p.size(3) < min_size) {
    fail(
        fmt::format("images of {}x{} are smaller than window_size {} or the high-pass filter's "
                    "half-size {}",
                    p.size(2), p.size(3), window_size_, min_size));
  }
  const auto hp_p = high_pass(p), hp_t = high_pass(t);
  const auto mean = [&](const at::Tensor& x) {
    return box_mean(x, window_size_, WindowBorder::Zeros);
  };
  const auto mean_p = mean(hp_p), mean_t = mean(hp_t);
  const auto var_p = (mean(hp_p * hp_p) - mean_p.square()).clamp_min(0);
  const auto var_t = (mean(hp_t * hp_t) - mean_t.square()).clamp_min(0);
  const auto covariance = mean(hp_p * hp_t) - mean_p * mean_t;
  const auto deviations = var_t.sqrt() * var_p.sqrt();
  const auto zero = deviations.eq(0);
  const auto scc = at::where(zero, at::zeros_like(covariance),
                             covariance / at::where(zero, at::ones_like(deviations), deviations));
  state(score_).add_(scc.mean({1, 2, 3}).sum());
  state(total_).add_(static_cast<double>(p.size(0)));
}

at::Tensor SpatialCorrelationCoefficient::compute_value() { return state(score_) / state(total_); }

}  // namespace fulgur::metrics
