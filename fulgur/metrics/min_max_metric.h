#pragma once
// MinMaxMetric (torchmetrics'): a scalar metric's value together with the lowest and highest
// values compute() has returned since the last reset(), e.g. the best accuracy seen during an
// epoch's evaluations. compute() gives {"raw", "min", "max"}, ready for Module::log_dict.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <memory>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class MinMaxMetric {
 public:
  // Raises ConfigError for a null metric or one that computes more than one number.
  explicit MinMaxMetric(std::shared_ptr<Metric> metric);

  Metric& metric() const { return *metric_; }
  void update(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  // The metric's value on the batch (min and max follow compute() only).
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  std::map<std::string, at::Tensor> compute();
  // The metric's value over every rank (the same min and max on every rank).
  std::map<std::string, at::Tensor> compute(Strategy& strategy);
  // Resets the metric, and min and max to +inf and -inf.
  void reset();

  // {"metric": the metric's state dict, "min_val", "max_val"}.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  std::map<std::string, at::Tensor> track(const at::Tensor& raw);

  std::shared_ptr<Metric> metric_;
  double min_, max_;
};

}  // namespace fulgur::metrics
