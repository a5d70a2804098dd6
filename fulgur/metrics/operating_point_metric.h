#pragma once
// The base of RecallAtFixedPrecision, PrecisionAtFixedRecall, SensitivityAtSpecificity and
// SpecificityAtSensitivity: a curve metric (PrecisionRecallCurve or ROC, whose inputs,
// thresholds, states and curves() it keeps) that reads each class' best point off its curve.
// compute() is the best value per class (0-dim for a binary task, else [classes]);
// operating_points() adds the thresholds.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/metrics/curve_metric.h"
#include "fulgur/metrics/operating_point.h"

namespace fulgur::metrics {

template <typename Curve>
class OperatingPointMetric : public Curve {
 public:
  using CurvePoints = typename decltype(std::declval<Curve&>().curves())::value_type;

  bool is_scalar() const override { return this->task() == Task::Binary; }
  std::optional<bool> higher_is_better() const override { return true; }
  // Each class' best value and its threshold (after sync(): over every rank's samples).
  OperatingPoints operating_points() {
    std::vector<OperatingPoint> points;
    for (const auto& curve : this->curves()) points.push_back(best(curve));
    return stack_points(points, this->task() == Task::Binary);
  }

 protected:
  // ConfigError when `minimum` (called `minimum_name`) lies outside [0, 1].
  OperatingPointMetric(std::string name, CurvePointsOptions options,
                       const std::string& minimum_name, double minimum)
      : Curve(std::move(name), std::move(options)), minimum_(minimum) {
    check_minimum(this->name(), minimum_name, minimum);
  }
  at::Tensor compute_value() override { return operating_points().value; }
  // One class' best point, under the minimum.
  virtual OperatingPoint best(const CurvePoints& curve) const = 0;
  double minimum() const { return minimum_; }

 private:
  double minimum_;
};

}  // namespace fulgur::metrics
