#pragma once
// AUROC (torchmetrics', with thresholds=None): the exact area under the ROC curve, from every
// score seen, as sklearn's roc_auc_score computes it (tied scores form one point of the
// curve, so a tie between a positive and a negative counts one half). Scores and targets are
// cat states: memory grows with the samples, and sync() gathers them from every rank.
//   binary      preds [N] probabilities or logits (a sigmoid when outside [0, 1]; the
//               ranking does not change), target [N] 0/1.
//   multiclass  one-vs-rest: preds [N, C] probabilities or logits (a softmax over C when
//               outside [0, 1]), target [N]; average "macro" (the mean over classes),
//               "weighted" (by support) or "none" (a [C] tensor).
// A class with no positive or no negative sample has no ROC curve: sklearn raises; like
// torchmetrics this scores it 0 and warns.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct AUROCOptions {
  std::string task;                     // required: "binary" or "multiclass"
  std::optional<int64_t> num_classes;   // required for multiclass
  std::string average = "macro";        // multiclass: "macro", "weighted" or "none"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class AUROC : public Metric {
 public:
  // Raises ConfigError for a bad task, num_classes or average.
  explicit AUROC(AUROCOptions options);
  bool is_scalar() const override { return task_ == Task::Binary || options_.average != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }
  const AUROCOptions& options() const { return options_; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  // The area for one class: scores [N] float64, positives [N] 0/1.
  double binary_area(const at::Tensor& scores, const at::Tensor& positives,
                     const std::string& what) const;

  AUROCOptions options_;
  Task task_;
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
