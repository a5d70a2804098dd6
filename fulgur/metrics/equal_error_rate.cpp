#include "fulgur/metrics/equal_error_rate.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

EER::EER(ROCOptions options) : ROC("EER", std::move(options)) {}

at::Tensor EER::compute_value() {
  std::vector<at::Tensor> rates;
  for (const auto& curve : curves()) {
    const auto miss = 1 - curve.tpr;
    const auto closest = (curve.fpr - miss).abs().argmin();
    rates.push_back((curve.fpr[closest] + miss[closest]) / 2);
  }
  const auto values = at::stack(rates);
  return task() == Task::Binary ? values[0] : values;
}

}  // namespace fulgur::metrics
