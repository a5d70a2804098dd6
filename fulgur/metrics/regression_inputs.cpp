#include "fulgur/metrics/regression_inputs.h"

#include <ATen/ATen.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {

void check_same_shape(const std::string& metric, const at::Tensor& preds,
                      const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) {
    throw MetricError(fmt::format("{}: update() needs preds and target", metric));
  }
  if (preds.sizes() != target.sizes()) {
    throw MetricError(
        fmt::format("{}: preds has shape [{}] but target has shape [{}]; they must "
                    "match",
                    metric, fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
}

double machine_epsilon(at::ScalarType dtype) {
  switch (dtype) {
    case at::kDouble:
      return std::numeric_limits<double>::epsilon();
    case at::kHalf:
      return static_cast<float>(std::numeric_limits<c10::Half>::epsilon());
    case at::kBFloat16:
      return static_cast<float>(std::numeric_limits<c10::BFloat16>::epsilon());
    default:
      return std::numeric_limits<float>::epsilon();
  }
}

std::pair<at::Tensor, at::Tensor> regression_pair(const std::string& metric,
                                                  const at::Tensor& preds,
                                                  const at::Tensor& target) {
  check_same_shape(metric, preds, target);
  // float64 sums: the values match float64 references (sklearn) to 1e-6 over many batches.
  return {preds.detach().to(at::kDouble), target.detach().to(at::kDouble)};
}

}  // namespace fulgur::metrics
