#include "fulgur/metrics/running_mean.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

RunningMean::RunningMean(const RunningOptions& options)
    : RunningAggregator("RunningMean", options) {
  mean_value_ = add_window_state("mean_value");
  weight_ = add_window_state("weight");
}

void RunningMean::update_state(const at::Tensor& value, const at::Tensor& weight) {
  const auto [weighted_sum, weight_sum] = weighted_sums(value, weight);
  put(mean_value_, weighted_sum);
  put(weight_, weight_sum);
}

at::Tensor RunningMean::aggregate() { return window_sum(mean_value_) / window_sum(weight_); }

}  // namespace fulgur::metrics
