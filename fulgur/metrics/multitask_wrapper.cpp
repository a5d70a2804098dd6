#include "fulgur/metrics/multitask_wrapper.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/synced_compute.h"

namespace fulgur::metrics {
namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

std::vector<std::string> names_of(const MultitaskWrapper::TaskTensors& tensors) {
  std::vector<std::string> names;
  for (const auto& entry : tensors) names.push_back(entry.first);
  return names;
}

}  // namespace

MultitaskWrapper::MultitaskWrapper(std::vector<std::pair<std::string, TaskMetric>> tasks,
                                   MultitaskWrapperOptions options)
    : options_(std::move(options)) {
  if (tasks.empty()) throw ConfigError("MultitaskWrapper needs at least one task");
  for (auto& [name, metric] : tasks) {
    if (name.empty()) throw ConfigError("MultitaskWrapper: a task needs a name");
    const bool null = std::visit([](const auto& m) { return m == nullptr; }, metric);
    if (null) throw ConfigError(fmt::format("MultitaskWrapper: task \"{}\" has no metric", name));
    for (const auto& task : tasks_) {
      if (task.name == name) {
        throw ConfigError(fmt::format("MultitaskWrapper: the task \"{}\" is given twice", name));
      }
    }
    tasks_.push_back({name, std::move(metric)});
  }
}

std::vector<std::string> MultitaskWrapper::task_names() const {
  std::vector<std::string> names;
  for (const auto& task : tasks_) names.push_back(task.name);
  return names;
}

std::vector<std::string> MultitaskWrapper::keys() const {
  std::vector<std::string> keys;
  for (const auto& task : tasks_) {
    std::visit(
        Overloaded{[&](const std::shared_ptr<Metric>&) {
                     keys.push_back(options_.prefix + task.name + options_.postfix);
                   },
                   [&](const std::shared_ptr<MetricCollection>& collection) {
                     for (const auto& [key, metric] : collection->items()) {
                       keys.push_back(options_.prefix + task.name + "_" + key + options_.postfix);
                     }
                   }},
        task.metric);
  }
  return keys;
}

void MultitaskWrapper::check_keys(const TaskTensors& preds, const TaskTensors& targets) const {
  auto expected = task_names();
  std::sort(expected.begin(), expected.end());
  const auto given_preds = names_of(preds), given_targets = names_of(targets);
  if (given_preds != expected || given_targets != expected) {
    throw MetricError(fmt::format(
        "MultitaskWrapper: preds and targets must have the tasks' names as keys, [{}]; preds has "
        "[{}], targets [{}]",
        fmt::join(expected, ", "), fmt::join(given_preds, ", "), fmt::join(given_targets, ", ")));
  }
}

void MultitaskWrapper::put(std::map<std::string, at::Tensor>& out, const Task& task,
                           const at::Tensor& value) const {
  out[options_.prefix + task.name + options_.postfix] = value;
}

void MultitaskWrapper::put(std::map<std::string, at::Tensor>& out, const Task& task,
                           const std::map<std::string, at::Tensor>& values) const {
  for (const auto& [key, value] : values) {
    out[options_.prefix + task.name + "_" + key + options_.postfix] = value;
  }
}

void MultitaskWrapper::update(const TaskTensors& preds, const TaskTensors& targets) {
  check_keys(preds, targets);
  for (auto& task : tasks_) {
    const auto& p = preds.at(task.name);
    const auto& t = targets.at(task.name);
    std::visit([&](const auto& metric) { metric->update(p, t); }, task.metric);
  }
}

std::map<std::string, at::Tensor> MultitaskWrapper::forward(const TaskTensors& preds,
                                                            const TaskTensors& targets) {
  check_keys(preds, targets);
  std::map<std::string, at::Tensor> out;
  for (auto& task : tasks_) {
    const auto& p = preds.at(task.name);
    const auto& t = targets.at(task.name);
    std::visit([&](const auto& metric) { put(out, task, metric->forward(p, t)); }, task.metric);
  }
  return out;
}

std::map<std::string, at::Tensor> MultitaskWrapper::compute() {
  std::map<std::string, at::Tensor> out;
  for (auto& task : tasks_) {
    std::visit([&](const auto& metric) { put(out, task, metric->compute()); }, task.metric);
  }
  return out;
}

std::map<std::string, at::Tensor> MultitaskWrapper::compute(Strategy& strategy) {
  return synced_compute(*this, strategy);
}

void MultitaskWrapper::reset() {
  for (auto& task : tasks_) std::visit([](const auto& metric) { metric->reset(); }, task.metric);
}

void MultitaskWrapper::sync(Strategy& strategy) {
  for (auto& task : tasks_) {
    std::visit([&](const auto& metric) { metric->sync(strategy); }, task.metric);
  }
}

void MultitaskWrapper::unsync() {
  for (auto& task : tasks_) {
    std::visit(Overloaded{[](const std::shared_ptr<Metric>& metric) {
                            if (metric->is_synced()) metric->unsync();
                          },
                          [](const std::shared_ptr<MetricCollection>& collection) {
                            collection->unsync();
                          }},
               task.metric);
  }
}

void MultitaskWrapper::to(const c10::Device& device) {
  for (auto& task : tasks_) {
    std::visit([&](const auto& metric) { metric->to(device); }, task.metric);
  }
}

c10::IValue MultitaskWrapper::state_dict() const {
  auto dict = c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& task : tasks_) {
    dict.insert(task.name,
                std::visit([](const auto& metric) { return metric->state_dict(); }, task.metric));
  }
  return dict;
}

void MultitaskWrapper::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) {
    throw CheckpointError(fmt::format(
        "the MultitaskWrapper state in the checkpoint is a {}, not a dict", state.tagKind()));
  }
  const auto dict = state.toGenericDict();
  if (dict.size() != tasks_.size()) {
    throw CheckpointError(
        fmt::format("the MultitaskWrapper state in the checkpoint has {} tasks, this wrapper {} "
                    "({})",
                    dict.size(), tasks_.size(), fmt::join(task_names(), ", ")));
  }
  for (auto& task : tasks_) {
    if (!dict.contains(task.name)) {
      throw CheckpointError(fmt::format(
          "the MultitaskWrapper state in the checkpoint has no task \"{}\"", task.name));
    }
    std::visit([&](const auto& metric) { metric->load_state_dict(dict.at(task.name)); },
               task.metric);
  }
}

}  // namespace fulgur::metrics
