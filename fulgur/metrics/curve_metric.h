#pragma once
// What the scores on a ranking of every sample share (AUROC, AveragePrecision; torchmetrics'
// metrics with thresholds=None): each update appends its scores and targets to cat states, so
// memory grows with the samples and sync() gathers them from every rank; compute() scores each
// class on its exact curve, one point per distinct score (tied scores move together).
//   binary      preds [N] probabilities or logits (a sigmoid when outside [0, 1]; the
//               ranking does not change), target [N] 0/1.
//   multiclass  one-vs-rest: preds [N, C] probabilities or logits (a softmax over C when
//               outside [0, 1]), target [N]; average "macro" (the mean over classes),
//               "weighted" (by support) or "none" (a [C] tensor). A class scored NaN (its
//               curve is undefined) is left out of the mean, with a warning, as torchmetrics.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

// AUROCOptions and AveragePrecisionOptions.
struct CurveOptions {
  std::string task;                     // required: "binary" or "multiclass"
  std::optional<int64_t> num_classes;   // required for multiclass
  std::string average = "macro";        // multiclass: "macro", "weighted" or "none"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

// Cumulative counts down the ranking, read at the last sample of each group of tied scores:
// tps[k] (fps[k]) = the positives (negatives) scoring at least the k-th highest distinct score.
struct ThresholdCounts {
  at::Tensor tps, fps;  // float64 [distinct scores]
};

class CurveMetric : public Metric {
 public:
  bool is_scalar() const override { return task_ == Task::Binary || options_.average != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }
  const CurveOptions& options() const { return options_; }

 protected:
  // Raises ConfigError naming `name` for a bad task, num_classes or average.
  CurveMetric(std::string name, CurveOptions options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // The score of one class: `scores` [N] float64, `positives` [N] 0/1 (float64); `what` names
  // the class in warnings.
  virtual double binary_score(const at::Tensor& scores, const at::Tensor& positives,
                              const std::string& what) const = 0;
  static ThresholdCounts threshold_counts(const at::Tensor& scores, const at::Tensor& positives);

 private:
  CurveOptions options_;
  Task task_;
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
