#include "fulgur/metrics/image/peak_signal_noise_ratio.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

PeakSignalNoiseRatio::PeakSignalNoiseRatio(PeakSignalNoiseRatioOptions options)
    : Metric("PeakSignalNoiseRatio"), options_(std::move(options)) {
  span_ = data_range_span(name(), options_.data_range);
  if (!(options_.base > 0) || options_.base == 1) {
    throw ConfigError(
        fmt::format("{}: base must be positive and not 1, not {}", name(), options_.base));
  }
  check_choice(name(), "reduction", options_.reduction, {"elementwise_mean", "sum", "none"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (options_.dim.empty()) {
    if (options_.reduction != "elementwise_mean") {
      warn(fmt::format("{}: reduction=\"{}\" has no effect without dim (one PSNR over every pixel)",
                       name(), options_.reduction));
    }
    squared_error_ = add_state("sum_squared_error", at::zeros({}, doubles), Reduction::Sum);
    total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
  } else {
    squared_error_ = add_state("sum_squared_error", at::zeros({0}, doubles), Reduction::Cat);
    total_ = add_state("total", at::zeros({0}, doubles), Reduction::Cat);
  }
}

void PeakSignalNoiseRatio::update_state(const at::Tensor& preds, const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  std::tie(p, t) = clamp_to_range(options_.data_range, p, t);
  const auto squared = (p - t).square();
  if (options_.dim.empty()) {
    state(squared_error_).add_(squared.sum());
    state(total_).add_(static_cast<double>(squared.numel()));
    return;
  }
  double group_size = 1;
  std::vector<bool> taken(p.dim(), false);
  for (const int64_t d : options_.dim) {
    if (d < -p.dim() || d >= p.dim()) {
      fail(fmt::format("dim {} is outside inputs of shape [{}]", d, fmt::join(p.sizes(), ", ")));
    }
    const int64_t axis = d < 0 ? d + p.dim() : d;
    if (taken[axis])
      fail(fmt::format("dim [{}] names dimension {} twice", fmt::join(options_.dim, ", "), axis));
    taken[axis] = true;
    group_size *= static_cast<double>(p.size(axis));
  }
  const auto sums = squared.sum(options_.dim).reshape({-1});
  append(squared_error_, sums);
  append(total_, at::full_like(sums, group_size));
}

at::Tensor PeakSignalNoiseRatio::compute_value() {
  const bool grouped = !options_.dim.empty();
  const auto squared_error = grouped ? cat_state(squared_error_) : state(squared_error_);
  const auto total = grouped ? cat_state(total_) : state(total_);
  const auto psnr =
      (2 * std::log(span_) - (squared_error / total).log()) * (10 / std::log(options_.base));
  if (!grouped || options_.reduction == "none") return psnr;
  return options_.reduction == "sum" ? psnr.sum() : psnr.mean();
}

}  // namespace fulgur::metrics
