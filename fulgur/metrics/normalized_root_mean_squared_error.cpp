#include "fulgur/metrics/normalized_root_mean_squared_error.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <limits>

#include "fulgur/errors.h"
#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {
namespace {
// The target's moments of one update, each a block of num_outputs numbers in its row.
enum Column : int64_t { kCount, kMean, kSquaredDeviations, kColumns };
}  // namespace

NormalizedRootMeanSquaredError::NormalizedRootMeanSquaredError(
    NormalizedRootMeanSquaredErrorOptions options)
    : Metric("NormalizedRootMeanSquaredError"), options_(std::move(options)) {
  const auto& normalization = options_.normalization;
  if (normalization != "mean" && normalization != "range" && normalization != "std" &&
      normalization != "l2") {
    throw ConfigError(
        fmt::format("NormalizedRootMeanSquaredError(normalization=\"{}\") is not valid; choose "
                    "\"mean\", \"range\", \"std\" or \"l2\"",
                    normalization));
  }
  check_num_outputs(name(), options_.num_outputs);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  const auto per_output = at::zeros({options_.num_outputs}, f64);
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  squared_error_ = add_state("sum_squared_error", per_output, Reduction::Sum);
  target_squared_sum_ = add_state("target_squared_sum", per_output, Reduction::Sum);
  target_min_ = add_state("min_val", per_output + kInfinity, Reduction::Min);
  target_max_ = add_state("max_val", per_output - kInfinity, Reduction::Max);
  target_moments_ = add_state("target_moments",
                              at::zeros({0, kColumns * options_.num_outputs}, f64), Reduction::Cat);
}

void NormalizedRootMeanSquaredError::update_state(const at::Tensor& preds,
                                                  const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  if (t.size(0) == 0) return;
  state(squared_error_).add_((p - t).square().sum(0));
  state(target_squared_sum_).add_(t.square().sum(0));
  state(target_min_) = at::minimum(state(target_min_), std::get<0>(t.min(0)));
  state(target_max_) = at::maximum(state(target_max_), std::get<0>(t.max(0)));
  const auto mean = t.mean(0);
  const auto count = at::full_like(mean, static_cast<double>(t.size(0)));
  append(target_moments_, at::cat({count, mean, (t - mean).square().sum(0)}).unsqueeze(0));
}

at::Tensor NormalizedRootMeanSquaredError::compute_value() {
  const auto rows = cat_state(target_moments_).view({-1, kColumns, options_.num_outputs});
  const auto count = rows.select(1, kCount), means = rows.select(1, kMean);
  const auto n = count.sum(0);
  if (rows.size(0) == 0) fail("no samples to score");
  const auto mean = (count * means).sum(0) / n;
  at::Tensor scale;
  if (options_.normalization == "mean") {
    scale = mean;
  } else if (options_.normalization == "range") {
    scale = state(target_max_) - state(target_min_);
  } else if (options_.normalization == "std") {
    // Each update's squared deviations about the overall mean: its own, plus its mean's offset.
    const auto squared_deviations =
        (rows.select(1, kSquaredDeviations) + count * (means - mean).square()).sum(0);
    scale = (squared_deviations / n).sqrt();
  } else {
    scale = state(target_squared_sum_).sqrt();
  }
  const auto nrmse = (state(squared_error_) / n).sqrt() / scale;
  return options_.num_outputs == 1 ? nrmse.squeeze(0) : nrmse;
}

}  // namespace fulgur::metrics
