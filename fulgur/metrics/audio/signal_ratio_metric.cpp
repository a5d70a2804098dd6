#include "fulgur/metrics/audio/signal_ratio_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

SignalRatioMetric::SignalRatioMetric(std::string name, const std::string& sum_state,
                                     const std::string& total_state, int64_t min_dims)
    : Metric(std::move(name)), min_dims_(min_dims) {
  sum_ =
      add_state(sum_state, at::zeros({}, at::TensorOptions().dtype(at::kDouble)), Reduction::Sum);
  total_ =
      add_state(total_state, at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void SignalRatioMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  check_same_shape(name(), preds, target);
  if (!preds.is_floating_point() || !target.is_floating_point()) {
    fail(fmt::format("preds and target must be floating point, not {} and {}",
                     c10::toString(preds.scalar_type()), c10::toString(target.scalar_type())));
  }
  if (preds.dim() < min_dims_ || preds.size(-1) == 0) {
    fail(fmt::format("preds and target must be [..., {}time] with at least one time step, not [{}]",
                     min_dims_ == 2 ? "speakers, " : "", fmt::join(preds.sizes(), ", ")));
  }
  const double eps = machine_epsilon(preds.scalar_type());
  const auto scores = ratios(preds.detach().to(at::kDouble), target.detach().to(at::kDouble), eps);
  state(sum_).add_(scores.sum());
  state(total_).add_(scores.numel());
}

at::Tensor SignalRatioMetric::compute_value() {
  return state(sum_) / state(total_).to(at::kDouble);
}

}  // namespace fulgur::metrics
