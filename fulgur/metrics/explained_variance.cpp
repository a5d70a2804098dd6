#include "fulgur/metrics/explained_variance.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

ExplainedVariance::ExplainedVariance(ExplainedVarianceOptions options)
    : Metric("ExplainedVariance"), options_(std::move(options)) {
  check_multioutput(name(), options_.num_outputs, options_.multioutput);
  const auto per_output = at::zeros({options_.num_outputs}, at::TensorOptions().dtype(at::kDouble));
  sum_error_ = add_state("sum_error", per_output, Reduction::Sum);
  sum_squared_error_ = add_state("sum_squared_error", per_output, Reduction::Sum);
  sum_target_ = add_state("sum_target", per_output, Reduction::Sum);
  sum_squared_target_ = add_state("sum_squared_target", per_output, Reduction::Sum);
  total_ =
      add_state("num_obs", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

bool ExplainedVariance::is_scalar() const {
  return multioutput_is_scalar(options_.num_outputs, options_.multioutput);
}

void ExplainedVariance::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  const auto error = t - p;
  state(sum_error_).add_(error.sum(0));
  state(sum_squared_error_).add_(error.square().sum(0));
  state(sum_target_).add_(t.sum(0));
  state(sum_squared_target_).add_(t.square().sum(0));
  state(total_).add_(t.size(0));
}

at::Tensor ExplainedVariance::compute_value() {
  const auto n = state(total_).to(at::kDouble);
  const auto numerator =
      state(sum_squared_error_) / n - (state(sum_error_) / n).square();  // Var(error)
  const auto denominator =
      state(sum_squared_target_) / n - (state(sum_target_) / n).square();  // Var(target)
  const auto scores = at::where(
      numerator.eq(0), at::ones_like(numerator),
      at::where(denominator.eq(0), at::zeros_like(numerator), 1 - numerator / denominator));
  return combine_outputs(scores, denominator, options_.multioutput);
}

}  // namespace fulgur::metrics
