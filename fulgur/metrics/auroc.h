#pragma once
// AUROC (torchmetrics'): the area under the ROC curve by trapezoids. Exact (thresholds unset):
// from every score seen, as sklearn's roc_auc_score computes it (tied scores form one point of
// the curve, so a tie between a positive and a negative counts one half). Binned (thresholds
// set): the trapezoids between the points at the thresholds only, as torchmetrics; with the
// default grid over [0, 1] that is roc_auc_score of scores rounded down to the grid, as long as
// no score reaches the highest threshold. Inputs, thresholds and states: CurveMetric; averages:
// CurveScore. max_fpr (binary only): the standardized partial AUC over fpr in [0, max_fpr], the
// curve cut at max_fpr by linear interpolation and rescaled so that chance scores 0.5 and a perfect
// ranking 1 (McClish), as sklearn's roc_auc_score(max_fpr=...) and torchmetrics.
// A class with no positive or no negative sample has no ROC curve: sklearn raises; like
// torchmetrics this scores it 0 and warns.
#include <optional>

#include "fulgur/metrics/curve_score.h"

namespace fulgur::metrics {

// CurveOptions' fields, and max_fpr.
struct AUROCOptions {
  std::string task;                    // required: "binary", "multiclass" or "multilabel"
  std::optional<int64_t> num_classes;  // required for multiclass
  std::optional<int64_t> num_labels;   // required for multilabel
  std::string average = "macro";       // "macro", "weighted" or "none"; multilabel: or "micro"
  std::optional<CurveThresholds> thresholds;  // unset: the exact curve; set: the binned curve
  std::optional<double> max_fpr;              // binary: the partial AUC up to it, in (0, 1]
  std::optional<int64_t> ignore_index;        // samples whose target is this value are left out
  bool validate_args = true;                  // value checks (one host read per update)

  CurveOptions curve() const {
    return {task, num_classes, num_labels, average, thresholds, ignore_index, validate_args};
  }
};

class AUROC : public CurveScore {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels, average, thresholds or max_fpr
  // (outside (0, 1], or with a task other than binary).
  explicit AUROC(AUROCOptions options);

 protected:
  double score(const ThresholdCounts& curve, const std::string& what) const override;

 private:
  std::optional<double> max_fpr_;
};

}  // namespace fulgur::metrics
