#include "fulgur/metrics/elementwise_mean.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

ElementwiseMean::ElementwiseMean(std::string name, const std::string& sum_name)
    : Metric(std::move(name)) {
  sum_ = add_state(sum_name, at::zeros({}, at::TensorOptions().dtype(at::kDouble)), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void ElementwiseMean::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(sum_).add_(error(p, t).sum());
  state(total_).add_(p.numel());
}

at::Tensor ElementwiseMean::compute_value() { return state(sum_) / state(total_).to(at::kDouble); }

}  // namespace fulgur::metrics
