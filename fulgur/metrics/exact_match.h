#pragma once
// ExactMatch (torchmetrics'): the share of samples whose every answer is right.
//   multiclass  preds [N, ...] labels or [N, C, ...] scores (the highest wins), target
//               [N, ...]: a sample counts when each of its positions is predicted right; for
//               target [N] that is Accuracy's micro value.
//   multilabel  preds and target [N, L, ...] (preds 0/1 labels, probabilities or logits, a
//               1 above `threshold`): a sample (each position of the extra dimensions is a
//               sample of its own, as torchmetrics) counts when all its L labels are right,
//               sklearn's accuracy_score of label indicators (subset accuracy).
// An answer whose target is ignore_index counts as right (torchmetrics). torchmetrics has no
// binary ExactMatch: task "binary" is a ConfigError. States: the matches and the samples, two
// sums.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct ExactMatchOptions {
  std::string task;                     // required: "multiclass" or "multilabel"
  double threshold = 0.5;               // multilabel: a probability above it is a 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> num_labels;    // required for multilabel
  std::optional<int64_t> ignore_index;  // answers whose target is this value count as right
  bool validate_args = true;            // value checks (one host read per update)
};

class ExactMatch : public Metric {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels or threshold.
  explicit ExactMatch(ExactMatchOptions options);
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  ExactMatchOptions options_;
  Task task_;
  StateId matches_, samples_;
};

}  // namespace fulgur::metrics
