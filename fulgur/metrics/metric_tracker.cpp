#include "fulgur/metrics/metric_tracker.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {

MetricTracker::MetricTracker(Factory make_metric, MetricTrackerOptions options)
    : make_metric_(std::move(make_metric)) {
  if (!make_metric_) throw ConfigError("MetricTracker needs a factory that makes its metric");
  const auto probe = make();
  if (options.maximize) {
    maximize_ = *options.maximize;
  } else if (const auto higher = probe->higher_is_better()) {
    maximize_ = *higher;
  } else {
    throw ConfigError(
        fmt::format("MetricTracker(maximize=None): {} has no higher_is_better; say whether to "
                    "maximize it",
                    probe->name()));
  }
}

std::unique_ptr<Metric> MetricTracker::make() const {
  auto metric = make_metric_();
  if (!metric) throw ConfigError("MetricTracker: the factory returned no metric");
  return metric;
}

void MetricTracker::increment() {
  auto metric = make();
  metric->to(device_);
  steps_.push_back(std::move(metric));
}

Metric& MetricTracker::at(int64_t step) const {
  if (step < 0 || step >= n_steps()) {
    throw MetricError(
        fmt::format("MetricTracker has {} steps; there is no step {}", n_steps(), step));
  }
  return *steps_[static_cast<size_t>(step)];
}

Metric& MetricTracker::latest(const char* method) const {
  if (steps_.empty()) {
    throw MetricError(fmt::format(
        "MetricTracker: {}() cannot be called before increment() has been called", method));
  }
  return *steps_.back();
}

void MetricTracker::update(const at::Tensor& input, const at::Tensor& target) {
  latest("update").update(input, target);
}

at::Tensor MetricTracker::forward(const at::Tensor& input, const at::Tensor& target) {
  return latest("forward").forward(input, target);
}

at::Tensor MetricTracker::compute() { return latest("compute").compute(); }

at::Tensor MetricTracker::compute(Strategy& strategy) {
  return latest("compute").compute(strategy);
}

void MetricTracker::reset() { latest("reset").reset(); }

at::Tensor MetricTracker::compute_all() {
  latest("compute_all");
  std::vector<at::Tensor> values;
  for (auto& metric : steps_) values.push_back(metric->compute());
  return at::stack(values);
}

at::Tensor MetricTracker::compute_all(Strategy& strategy) {
  latest("compute_all");
  std::vector<at::Tensor> values;
  for (auto& metric : steps_) values.push_back(metric->compute(strategy));
  return at::stack(values);
}

void MetricTracker::reset_all() {
  for (auto& metric : steps_) metric->reset();
}

MetricTracker::Best MetricTracker::best_metric() {
  const auto& metric = latest("best_metric");
  if (!metric.is_scalar()) {
    throw MetricError(fmt::format(
        "MetricTracker: {} computes more than one number per step; best_metric() is not "
        "defined for it (compare compute_all()'s rows yourself)",
        metric.name()));
  }
  const auto all = compute_all().to(at::kCPU);
  const auto [value, step] = maximize_ ? all.max(0) : all.min(0);
  return {value.item<double>(), step.item<int64_t>()};
}

void MetricTracker::to(const c10::Device& device) {
  device_ = device;
  for (auto& metric : steps_) metric->to(device);
}

c10::IValue MetricTracker::state_dict() const {
  auto list = c10::impl::GenericList(c10::AnyType::get());
  for (const auto& metric : steps_) list.push_back(metric->state_dict());
  return list;
}

void MetricTracker::load_state_dict(const c10::IValue& state) {
  if (!state.isList()) {
    throw CheckpointError(fmt::format(
        "the MetricTracker state in the checkpoint is a {}, not a list of steps", state.tagKind()));
  }
  std::vector<std::unique_ptr<Metric>> steps;
  for (const auto& step : state.toListRef()) {
    auto metric = make();
    metric->to(device_);
    metric->load_state_dict(step);
    steps.push_back(std::move(metric));
  }
  steps_ = std::move(steps);
}

}  // namespace fulgur::metrics
