#pragma once
// MatthewsCorrCoef (torchmetrics'): the correlation between predicted and true classes, from
// the confusion matrix C (n samples, c correct, t_k / p_k the true / predicted counts of
// class k):
//   (c n - sum t_k p_k) / sqrt((n^2 - sum p_k^2) (n^2 - sum t_k^2)),
// in [-1, 1]. When the denominator is 0 (only one class in target or in preds) the value is
// 0, as sklearn's matthews_corrcoef (torchmetrics has extra binary rules there, which changed
// between its versions). Multilabel: the coefficient of one 2 x 2 matrix summing every
// label's, that is of all (sample, label) answers together, as torchmetrics.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/confusion_matrix.h"

namespace fulgur::metrics {

struct MatthewsCorrCoefOptions {
  std::string task;                     // required: "binary", "multiclass" or "multilabel"
  double threshold = 0.5;               // binary, multilabel: a probability above it is a 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> num_labels;    // required for multilabel
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class MatthewsCorrCoef : public ConfusionMatrix {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels or threshold.
  explicit MatthewsCorrCoef(MatthewsCorrCoefOptions options);
  bool is_scalar() const override { return true; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor compute_value() override;
};

}  // namespace fulgur::metrics
