#include "fulgur/metrics/metric_collection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/synced_compute.h"

namespace fulgur::metrics {

MetricCollection::MetricCollection(std::vector<Entry> metrics, MetricCollectionOptions options)
    : options_(std::move(options)) {
  for (auto& [name, metric] : metrics) add(name, std::move(metric));
}

void MetricCollection::add(const std::string& name, std::shared_ptr<Metric> metric) {
  if (name.empty()) throw ConfigError("MetricCollection: a metric needs a name");
  if (!metric) throw ConfigError(fmt::format("MetricCollection: metric \"{}\" is null", name));
  for (const auto& entry : metrics_) {
    if (entry.first == name) {
      throw ConfigError(fmt::format("MetricCollection: the name \"{}\" is used twice", name));
    }
  }
  metrics_.emplace_back(name, std::move(metric));
}

Metric& MetricCollection::at(const std::string& name) const {
  for (const auto& entry : metrics_) {
    if (entry.first == name) return *entry.second;
  }
  throw ConfigError(fmt::format("MetricCollection has no metric \"{}\"; it has: {}", name,
                                fmt::join(names(), ", ")));
}

std::vector<std::string> MetricCollection::names() const {
  std::vector<std::string> out;
  for (const auto& entry : metrics_) out.push_back(entry.first);
  return out;
}

std::string MetricCollection::key(const std::string& name) const {
  return options_.prefix + name + options_.postfix;
}

void MetricCollection::update(const at::Tensor& preds, const at::Tensor& target) {
  for (auto& entry : metrics_) entry.second->update(preds, target);
}

std::map<std::string, at::Tensor> MetricCollection::forward(const at::Tensor& preds,
                                                            const at::Tensor& target) {
  std::map<std::string, at::Tensor> out;
  for (auto& entry : metrics_) out[key(entry.first)] = entry.second->forward(preds, target);
  return out;
}

std::vector<MetricCollection::Entry> MetricCollection::items() const {
  std::vector<Entry> out;
  for (const auto& [name, metric] : metrics_) out.emplace_back(key(name), metric);
  return out;
}

std::map<std::string, at::Tensor> MetricCollection::compute() {
  std::map<std::string, at::Tensor> out;
  for (auto& entry : metrics_) out[key(entry.first)] = entry.second->compute();
  return out;
}

std::map<std::string, at::Tensor> MetricCollection::compute(Strategy& strategy) {
  return synced_compute(*this, strategy);
}

void MetricCollection::reset() {
  for (auto& entry : metrics_) entry.second->reset();
}

void MetricCollection::sync(Strategy& strategy) {
  for (auto& entry : metrics_) entry.second->sync(strategy);
}

void MetricCollection::unsync() {
  for (auto& entry : metrics_) {
    if (entry.second->is_synced()) entry.second->unsync();
  }
}

void MetricCollection::to(const c10::Device& device) {
  for (auto& entry : metrics_) entry.second->to(device);
}

c10::IValue MetricCollection::state_dict() const {
  auto dict = c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& entry : metrics_) dict.insert(entry.first, entry.second->state_dict());
  return dict;
}

void MetricCollection::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) {
    throw CheckpointError(fmt::format(
        "the MetricCollection state in the checkpoint is a {}, not a dict", state.tagKind()));
  }
  const auto dict = state.toGenericDict();
  if (dict.size() != metrics_.size()) {
    throw CheckpointError(fmt::format(
        "the MetricCollection state in the checkpoint has {} metrics, this collection {} ({})",
        dict.size(), metrics_.size(), fmt::join(names(), ", ")));
  }
  for (auto& entry : metrics_) {
    if (!dict.contains(entry.first)) {
      throw CheckpointError(fmt::format(
          "the MetricCollection state in the checkpoint has no metric \"{}\"", entry.first));
    }
    entry.second->load_state_dict(dict.at(entry.first));
  }
}

}  // namespace fulgur::metrics
