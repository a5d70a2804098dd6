#pragma once
// Checks shared by the regression metrics: preds and target of one shape, as float64.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>

namespace fulgur::metrics {

// The smallest denominator the percentage errors divide by (torchmetrics' epsilon): a smaller
// one counts as this instead of dividing by zero.
constexpr double kSmallestDenominator = 1.17e-06;

// MetricError naming `metric` when a tensor is missing or the shapes differ.
void check_same_shape(const std::string& metric, const at::Tensor& preds, const at::Tensor& target);

// The machine epsilon of a floating dtype (torch.finfo(dtype).eps; float32's for other
// dtypes), for the metrics that add it as torchmetrics does in the inputs' own precision.
double machine_epsilon(at::ScalarType dtype);

// (preds, target) as float64 tensors, after check_same_shape.
std::pair<at::Tensor, at::Tensor> regression_pair(const std::string& metric,
                                                  const at::Tensor& preds,
                                                  const at::Tensor& target);

}  // namespace fulgur::metrics
