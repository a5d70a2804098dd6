#include "fulgur/metrics/log_cosh_error.h"

#include <ATen/ATen.h>

#include <cmath>

#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

LogCoshError::LogCoshError(LogCoshErrorOptions options)
    : Metric("LogCoshError"), num_outputs_(options.num_outputs) {
  check_num_outputs(name(), num_outputs_);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  sum_ = add_state("sum_log_cosh_error", at::zeros({num_outputs_}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void LogCoshError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, num_outputs_);
  const auto gap = (p - t).abs();
  state(sum_).add_((gap + (-2 * gap).exp().log1p() - std::log(2.0)).sum(0));
  state(total_).add_(p.size(0));
}

at::Tensor LogCoshError::compute_value() {
  const auto mean = state(sum_) / state(total_).to(at::kDouble);
  return num_outputs_ == 1 ? mean.squeeze(0) : mean;
}

}  // namespace fulgur::metrics
