#include "fulgur/metrics/min_max_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double number_at(const c10::impl::GenericDict& dict, const std::string& key) {
  if (!dict.contains(key) || !dict.at(key).isTensor() || dict.at(key).toTensor().numel() != 1) {
    throw CheckpointError(
        fmt::format("the MinMaxMetric state in the checkpoint has no number \"{}\"", key));
  }
  return dict.at(key).toTensor().item<double>();
}

}  // namespace

MinMaxMetric::MinMaxMetric(std::shared_ptr<Metric> metric)
    : metric_(std::move(metric)), min_(kInfinity), max_(-kInfinity) {
  if (!metric_) throw ConfigError("MinMaxMetric needs a metric");
  if (!metric_->is_scalar()) {
    throw ConfigError(fmt::format(
        "MinMaxMetric: {} computes more than one number; min and max need a scalar metric",
        metric_->name()));
  }
}

void MinMaxMetric::update(const at::Tensor& input, const at::Tensor& target) {
  metric_->update(input, target);
}

at::Tensor MinMaxMetric::forward(const at::Tensor& input, const at::Tensor& target) {
  return metric_->forward(input, target);
}

std::map<std::string, at::Tensor> MinMaxMetric::compute() { return track(metric_->compute()); }

std::map<std::string, at::Tensor> MinMaxMetric::compute(Strategy& strategy) {
  return track(metric_->compute(strategy));
}

std::map<std::string, at::Tensor> MinMaxMetric::track(const at::Tensor& raw) {
  const double value = raw.item<double>();
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  return {
      {"raw", raw}, {"min", at::scalar_tensor(min_, f64)}, {"max", at::scalar_tensor(max_, f64)}};
}

void MinMaxMetric::reset() {
  metric_->reset();
  min_ = kInfinity;
  max_ = -kInfinity;
}

c10::IValue MinMaxMetric::state_dict() const {
  auto dict = c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  dict.insert("metric", metric_->state_dict());
  dict.insert("min_val", at::scalar_tensor(min_, f64));
  dict.insert("max_val", at::scalar_tensor(max_, f64));
  return dict;
}

void MinMaxMetric::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict() || !state.toGenericDict().contains("metric")) {
    throw CheckpointError(
        fmt::format("the MinMaxMetric state in the checkpoint is a {}, not a dict with \"metric\", "
                    "\"min_val\" and \"max_val\"",
                    state.tagKind()));
  }
  const auto dict = state.toGenericDict();
  const double min = number_at(dict, "min_val"), max = number_at(dict, "max_val");
  metric_->load_state_dict(dict.at("metric"));
  min_ = min;
  max_ = max;
}

}  // namespace fulgur::metrics
