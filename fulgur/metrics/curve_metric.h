#pragma once
// What the metrics on a ranking of samples share (AUROC and AveragePrecision through CurveScore,
// ROC and PrecisionRecallCurve; torchmetrics' metrics with their `thresholds` argument): each
// class' curve of cumulative counts, built one of two ways:
//   exact   (thresholds unset, torchmetrics' None): each update appends its scores and targets
//           to cat states, so memory grows with the samples and sync() gathers them from every
//           rank; the curve has one point per distinct score (tied scores move together),
//           after the origin.
//   binned  (thresholds a count or values): each update adds, per class, how many positives
//           and negatives clear each threshold (a score >= the threshold) to sum states of
//           [classes, thresholds + 1] counts: constant memory, and sync() sums them. The curve
//           has one point per threshold and no other (torchmetrics' binned curves).
// Inputs:
//   binary      preds [N] probabilities or logits (a sigmoid when outside [0, 1]; the
//               ranking does not change), target [N] 0/1.
//   multiclass  one-vs-rest: preds [N, C] probabilities or logits (a softmax over C when
//               outside [0, 1]), target [N]; a curve per class.
//   multilabel  each label a binary task: preds [N, L, ...] probabilities or logits (a
//               sigmoid when outside [0, 1]), target [N, L, ...] 0/1, an element whose target
//               is ignore_index left out; a curve per label, or with average "micro" one curve
//               of every (sample, label) score together.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

// torchmetrics' thresholds: a count n (n >= 2 thresholds evenly spaced over [0, 1]) or the
// thresholds themselves (increasing, in [0, 1]).
using CurveThresholds = std::variant<int64_t, std::vector<double>>;

// AveragePrecisionOptions, and AUROCOptions' and CurvePointsOptions' curve().
struct CurveOptions {
  std::string task;                    // required: "binary", "multiclass" or "multilabel"
  std::optional<int64_t> num_classes;  // required for multiclass
  std::optional<int64_t> num_labels;   // required for multilabel
  std::string average = "macro";       // "macro", "weighted" or "none"; multilabel: or "micro"
  std::optional<CurveThresholds> thresholds;  // unset: the exact curve; set: the binned curve
  std::optional<int64_t> ignore_index;        // samples whose target is this value are left out
  bool validate_args = true;                  // value checks (one host read per update)
};

// ROCOptions and PrecisionRecallCurveOptions: CurveOptions without an average, since those
// metrics return every class' curve.
struct CurvePointsOptions {
  std::string task;                           // required: "binary", "multiclass" or "multilabel"
  std::optional<int64_t> num_classes;         // required for multiclass
  std::optional<int64_t> num_labels;          // required for multilabel
  std::optional<CurveThresholds> thresholds;  // unset: the exact curve; set: the binned curve
  std::optional<int64_t> ignore_index;        // samples whose target is this value are left out
  bool validate_args = true;                  // value checks (one host read per update)

  CurveOptions curve() const {
    return {task, num_classes, num_labels, "none", thresholds, ignore_index, validate_args};
  }
};

// One class' curve, its points from the highest threshold down: tps[k] (fps[k]) = the
// positives (negatives) whose score clears thresholds[k].
struct ThresholdCounts {
  at::Tensor tps, fps;          // float64 [points]
  at::Tensor thresholds;        // float64 [points], decreasing; the exact curve's origin has 1
  double positives, negatives;  // the class' samples
};

class CurveMetric : public Metric {
 public:
  const CurveOptions& options() const { return options_; }

 protected:
  // Raises ConfigError naming `name` for a bad task, num_classes, num_labels, average or
  // thresholds.
  CurveMetric(std::string name, CurveOptions options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;

  Task task() const { return task_; }
  bool binned() const { return options_.thresholds.has_value(); }
  bool micro() const { return options_.average == "micro"; }
  // The curves of the binary target, of each class (label), or the micro curve, from the states.
  std::vector<ThresholdCounts> threshold_counts();
  // How warnings name the curve at `index` of threshold_counts(): "class 2", "label 0", "the binary
  // target" or "the micro curve".
  std::string curve_name(int64_t index) const;
  // compute() of the metrics that return curves: each curve's two rows stacked, [2, points]
  // for a binary task, [curves, 2, points] for binned ones; MetricError for the exact curves of
  // several classes, which differ in length (`accessor` names where to read them instead).
  at::Tensor stack_curves(const std::vector<std::pair<at::Tensor, at::Tensor>>& curves,
                          const std::string& accessor) const;

 private:
  std::vector<ThresholdCounts> exact_curves() const;
  std::vector<ThresholdCounts> exact_label_curves(const at::Tensor& scores,
                                                  const at::Tensor& target) const;
  std::vector<ThresholdCounts> binned_curves();
  // Adds the batch's counts per threshold: `probabilities` [N] or [N, C] ([N, L]), `target` [N]
  // ([N, L]) with ignored samples (elements) 0 in `valid`.
  void count_at_thresholds(const at::Tensor& probabilities, const at::Tensor& target,
                           const at::Tensor& valid);

  CurveOptions options_;
  Task task_;
  at::Tensor thresholds_;              // binned: float64, increasing, on the states' device
  StateId preds_{}, target_{};         // exact: cat states ([N, L] each for multilabel)
  StateId positives_{}, negatives_{};  // binned: [classes, thresholds + 1] sums; column j
                                       // counts the samples clearing exactly j thresholds
};

}  // namespace fulgur::metrics
