#pragma once
// BaseAggregator: what torchmetrics' aggregation metrics share (MeanMetric, SumMetric,
// MaxMetric, MinMetric, CatMetric): the values passed to update(value, weight). Values
// may be numbers of any shape; every element counts. States are float64 and merge across
// processes by sum (mean: weighted sum and weight), max or min.
//
// nan_strategy (torchmetrics' names) says what a NaN value does:
//   "warn"     (default) it is left out, and compute() warns how many were; no host read
//              per update (the NaNs are counted on the device)
//   "ignore"   it is left out silently
//   "error"    update() raises MetricError (one host read per update)
//   "disable"  no handling: NaN propagates into the result
//   a number   it is replaced by that number
// Before any update compute() raises MetricError (see Metric). A MeanMetric whose weights sum
// to 0 is NaN; a Max/MinMetric that saw only left-out values is -inf/+inf.
#include <string>
#include <utility>
#include <variant>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct AggregationOptions {
  std::variant<std::string, double> nan_strategy = std::string("warn");
};

// The NaN handling and the "nan_count" state every aggregator has.
class BaseAggregator : public Metric {
 protected:
  // Raises ConfigError for an unknown nan_strategy.
  BaseAggregator(std::string name, AggregationOptions options);
  // `value` as float64 with NaNs replaced by `left_out` (or the user's number), and the mask
  // of the values that count (undefined when all count).
  std::pair<at::Tensor, at::Tensor> clean(const at::Tensor& value, double left_out);
  // clean(value, 0) weighted: the sum of value * weight and the sum of the weights (weight
  // broadcastable to value's shape, undefined: 1 each); a left-out value weighs nothing.
  std::pair<at::Tensor, at::Tensor> weighted_sums(const at::Tensor& value,
                                                  const at::Tensor& weight);
  at::Tensor compute_value() override;
  // The subclass' compute_value(); the base adds the warning.
  virtual at::Tensor aggregate() = 0;
  // Whether NaN values are left out ("warn", "ignore") rather than kept, replaced or refused.
  bool leaves_nan_out() const;

 private:
  AggregationOptions options_;
  StateId nan_count_;
};

}  // namespace fulgur::metrics
