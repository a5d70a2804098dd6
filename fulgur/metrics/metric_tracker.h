#pragma once
// MetricTracker (torchmetrics' wrapper): one metric's value over a series of steps, e.g. its
// validation value after each epoch. increment() starts a fresh copy of the metric (made by the
// factory, as torchmetrics deep-copies its base metric); update, forward, compute and reset act
// on the latest copy; compute_all() stacks every step's value ([n_steps] for a scalar metric,
// [n_steps, ...] otherwise); best_metric() is the best step by `maximize`.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MetricTrackerOptions {
  // Whether a larger value is better; nullopt takes the metric's higher_is_better().
  std::optional<bool> maximize = true;
};

class MetricTracker {
 public:
  using Factory = std::function<std::unique_ptr<Metric>()>;
  struct Best {
    double value;
    int64_t step;  // 0-based, in increment() order
  };

  // Raises ConfigError for a null factory or a factory that returns null, and for maximize
  // nullopt with a metric that has no higher_is_better().
  explicit MetricTracker(Factory make_metric, MetricTrackerOptions options = {});

  // Starts the next step with a fresh metric on the device of the previous one.
  void increment();
  int64_t n_steps() const { return static_cast<int64_t>(steps_.size()); }
  bool maximize() const { return maximize_; }
  // The metric of `step` (0-based); MetricError outside [0, n_steps).
  Metric& at(int64_t step) const;

  // The latest step's metric; each raises MetricError before the first increment().
  void update(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  at::Tensor compute();
  at::Tensor compute(Strategy& strategy);
  void reset();

  // Every step's value, stacked (each over every rank with a strategy).
  at::Tensor compute_all();
  at::Tensor compute_all(Strategy& strategy);
  void reset_all();
  // The best of compute_all() and its step; the first such step on ties. MetricError for a
  // metric that does not compute a single number.
  Best best_metric();

  void to(const c10::Device& device);
  // A list with each step's state dict; loading makes as many steps.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  Metric& latest(const char* method) const;
  std::unique_ptr<Metric> make() const;

  Factory make_metric_;
  bool maximize_;
  c10::Device device_ = c10::Device(c10::kCPU);
  std::vector<std::unique_ptr<Metric>> steps_;
};

}  // namespace fulgur::metrics
