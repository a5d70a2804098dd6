#include "fulgur/metrics/running_sum.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

RunningSum::RunningSum(const RunningOptions& options) : RunningAggregator("RunningSum", options) {
  sum_value_ = add_window_state("sum_value");
}

void RunningSum::update_state(const at::Tensor& value, const at::Tensor&) {
  put(sum_value_, clean(value, 0.0).first.sum());
}

at::Tensor RunningSum::aggregate() { return window_sum(sum_value_); }

}  // namespace fulgur::metrics
