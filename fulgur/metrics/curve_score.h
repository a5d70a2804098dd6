#pragma once
// The metrics that score each class' curve with one number (AUROC, AveragePrecision), then
// average the classes as CurveOptions::average says: "macro" (the mean), "weighted" (by each
// class' positives), "none" (a [C] tensor) or, for multilabel tasks, "micro" (the score of the
// one curve of every (sample, label) pair). A class scored NaN (its curve is undefined) is
// left out of the averages with a warning, as torchmetrics.
#include <optional>
#include <string>

#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

class CurveScore : public CurveMetric {
 public:
  bool is_scalar() const override { return task() == Task::Binary || options().average != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  CurveScore(std::string name, CurveOptions options);
  at::Tensor compute_value() override;

  // The score of one class' curve; `what` names the class in warnings.
  virtual double score(const ThresholdCounts& curve, const std::string& what) const = 0;
};

}  // namespace fulgur::metrics
