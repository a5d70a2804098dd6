#pragma once
// ConfusionMatrix (torchmetrics'): counts of (true class, predicted class) pairs, rows the
// target and columns the prediction as in sklearn's confusion_matrix; binary is 2 x 2;
// multilabel is a 2 x 2 matrix per label, [L, 2, 2] ([[tn, fp], [fn, tp]] each, as sklearn's
// multilabel_confusion_matrix).
// normalize: "none" (counts), "true" (each row sums to 1), "pred" (each column does) or
// "all" (the whole matrix does; multilabel: each label's); a row or column with no samples
// stays 0. compute() returns float64 (counts too, so that every metric value converts the
// same way).
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct ConfusionMatrixOptions {
  std::string task;                     // required: "binary", "multiclass" or "multilabel"
  double threshold = 0.5;               // binary, multilabel: a probability above it is a 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> num_labels;    // required for multilabel
  std::string normalize = "none";       // "none", "true", "pred" or "all"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class ConfusionMatrix : public Metric {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels, normalize or threshold.
  explicit ConfusionMatrix(ConfusionMatrixOptions options);
  bool is_scalar() const override { return false; }
  const ConfusionMatrixOptions& options() const { return options_; }

 protected:
  // For the scores computed from the matrix (MatthewsCorrCoef, CohenKappa): `name` in messages.
  ConfusionMatrix(std::string name, ConfusionMatrixOptions options);
  // The [C, C] ([L, 2, 2]) counts (rows target, columns prediction) as float64, whatever
  // `normalize` says.
  at::Tensor counts();
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  ConfusionMatrixOptions options_;
  Task task_;
  int64_t classes_;  // the matrix' rows (2 for each label)
  StateId matrix_;
};

}  // namespace fulgur::metrics
