#pragma once
// MultitaskWrapper (torchmetrics'): the metrics of a multi-task model, one Metric or
// MetricCollection per task, each fed its own task's preds and target: update() takes a map
// from task name to tensor for each. compute() and forward() give one flat map, ready for
// Module::log_dict: a metric's value under prefix + task + postfix, a collection's values under
// prefix + task + "_" + the collection's key + postfix (torchmetrics' flattened names).
// Tasks are synced in the order given, so every rank must build its wrapper alike.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fulgur/metrics/metric.h"
#include "fulgur/metrics/metric_collection.h"

namespace fulgur::metrics {

struct MultitaskWrapperOptions {
  std::string prefix;   // put before each key
  std::string postfix;  // put after it
};

class MultitaskWrapper {
 public:
  using TaskMetric = std::variant<std::shared_ptr<Metric>, std::shared_ptr<MetricCollection>>;
  using TaskTensors = std::map<std::string, at::Tensor>;

  // Raises ConfigError for no tasks, an empty or repeated task name, or a null metric.
  explicit MultitaskWrapper(std::vector<std::pair<std::string, TaskMetric>> tasks,
                            MultitaskWrapperOptions options = {});

  std::vector<std::string> task_names() const;
  // compute()'s keys, in task order.
  std::vector<std::string> keys() const;

  // MetricError unless preds and targets both have exactly the tasks' names as keys.
  void update(const TaskTensors& preds, const TaskTensors& targets);
  // Each task's forward(): updated with the batch, and its values on this batch alone.
  std::map<std::string, at::Tensor> forward(const TaskTensors& preds, const TaskTensors& targets);
  std::map<std::string, at::Tensor> compute();
  // Every task's values over every rank (sync, compute, unsync).
  std::map<std::string, at::Tensor> compute(Strategy& strategy);
  void reset();
  void sync(Strategy& strategy);
  void unsync();
  void to(const c10::Device& device);

  // {task: its metric's or collection's state dict}; loading checks that the same tasks are
  // there.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  struct Task {
    std::string name;
    TaskMetric metric;
  };
  void check_keys(const TaskTensors& preds, const TaskTensors& targets) const;
  // A task's values (a metric's one, or a collection's map) under their flat keys.
  void put(std::map<std::string, at::Tensor>& out, const Task& task, const at::Tensor& value) const;
  void put(std::map<std::string, at::Tensor>& out, const Task& task,
           const std::map<std::string, at::Tensor>& values) const;

  std::vector<Task> tasks_;
  MultitaskWrapperOptions options_;
};

}  // namespace fulgur::metrics
