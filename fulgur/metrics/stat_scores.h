#pragma once
// StatScores (torchmetrics' StatScores family): the base of Accuracy, Precision, Recall and
// F1Score. Its states are the true/false positive/negative counts (per class for multiclass,
// per label for multilabel; int64, summed across processes); a subclass says how one set of
// counts becomes a score, and the averaging is shared, as torchmetrics does it:
//   binary    the score of the single set of counts (`average` is not used);
//   micro     the score of the counts summed over the classes (labels);
//   macro     multiclass: the mean of the per-class scores over the classes that occur (in
//             target or preds; with top_k > 1: in target), which is sklearn's default set of
//             labels; multilabel: the mean over every label;
//   weighted  the per-class scores weighted by support (tp + fn);
//   none      the per-class scores, a [C] ([L]) tensor.
// A score whose denominator is 0 is 0 (torchmetrics' documented behaviour, sklearn's
// zero_division=0).
#include <optional>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/classification_options.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class StatScores : public Metric {
 public:
  const ClassificationOptions& options() const { return options_; }
  Task task() const { return task_; }
  bool is_scalar() const override;
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // Raises ConfigError for a bad task, num_classes, num_labels, average, top_k or threshold.
  StatScores(std::string name, ClassificationOptions options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // The score of counts (float64 tensors of one shape), elementwise.
  virtual at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                           const at::Tensor& fn) const = 0;

 private:
  ClassificationOptions options_;
  Task task_;
  StateId tp_, fp_, tn_, fn_;
};

}  // namespace fulgur::metrics
