#pragma once
// HingeLoss (torchmetrics'): the mean hinge loss max(0, 1 - margin) of a classifier's scores,
// or its square with `squared`.
//   binary      preds [N, ...] probabilities or logits (a sigmoid unless every value is in
//               [0, 1]), target 0/1: the margin is the score for a 1, minus it for a 0.
//   multiclass  preds [N, C, ...] scores (a softmax unless in [0, 1]), target [N, ...]:
//               "crammer-singer" (the default) takes the true class' score minus the highest
//               other one; "one-vs-all" scores each class as a binary task of its own and
//               returns the C losses.
// States: the summed losses and the number of samples. torchmetrics has no multilabel
// HingeLoss: that task is a ConfigError.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct HingeLossOptions {
  std::string task;                                // required: "binary" or "multiclass"
  bool squared = false;                            // the mean of the squared losses
  std::optional<int64_t> num_classes;              // required for multiclass
  std::string multiclass_mode = "crammer-singer";  // or "one-vs-all"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class HingeLoss : public Metric {
 public:
  // Raises ConfigError for a bad task, num_classes or multiclass_mode.
  explicit HingeLoss(HingeLossOptions options);
  // One-vs-all returns a loss per class.
  bool is_scalar() const override { return !one_vs_all(); }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  bool one_vs_all() const;

  HingeLossOptions options_;
  Task task_;
  StateId losses_, samples_;
};

}  // namespace fulgur::metrics
