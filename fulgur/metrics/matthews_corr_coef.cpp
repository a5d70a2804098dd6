#include "fulgur/metrics/matthews_corr_coef.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MatthewsCorrCoef::MatthewsCorrCoef(MatthewsCorrCoefOptions o)
    : ConfusionMatrix("MatthewsCorrCoef", {.task = std::move(o.task),
                                           .threshold = o.threshold,
                                           .num_classes = o.num_classes,
                                           .num_labels = o.num_labels,
                                           .ignore_index = o.ignore_index,
                                           .validate_args = o.validate_args}) {}

at::Tensor MatthewsCorrCoef::compute_value() {
  // Multilabel: one 2 x 2 matrix of every label's answers, as torchmetrics.
  auto m = counts();
  if (m.dim() == 3) m = m.sum(0);
  const auto truth = m.sum(1), predicted = m.sum(0);
  const auto n = m.sum(), correct = m.trace();
  const auto covariance = correct * n - truth.dot(predicted);
  const auto spread_pred = n * n - predicted.dot(predicted);
  const auto spread_true = n * n - truth.dot(truth);
  return safe_divide(covariance, spread_pred.sqrt() * spread_true.sqrt());
}

}  // namespace fulgur::metrics
