#pragma once
// MetricCollection (torchmetrics'): named metrics that take the same inputs, updated,
// computed, reset, synced and saved together. compute() returns each metric's value under
// prefix + name + postfix (e.g. "val_acc"), ready to log. The order of insertion is the order
// of every collective in sync(), so all ranks must build their collections alike.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MetricCollectionOptions {
  std::string prefix;   // put before each name in compute()'s keys
  std::string postfix;  // put after it
};

class MetricCollection {
 public:
  using Entry = std::pair<std::string, std::shared_ptr<Metric>>;
  // Raises ConfigError for an empty or repeated name, or a null metric.
  explicit MetricCollection(std::vector<Entry> metrics = {}, MetricCollectionOptions options = {});

  void add(const std::string& name, std::shared_ptr<Metric> metric);
  // The metric called `name`; ConfigError naming the known ones when there is none.
  Metric& at(const std::string& name) const;
  std::vector<std::string> names() const;
  // The metrics under compute()'s keys (prefix + name + postfix), in insertion order: what
  // Module::log_dict logs.
  std::vector<Entry> items() const;
  size_t size() const { return metrics_.size(); }

  void update(const at::Tensor& preds, const at::Tensor& target = at::Tensor());
  // Each metric's forward(): updated with the batch, and its value on this batch alone.
  std::map<std::string, at::Tensor> forward(const at::Tensor& preds,
                                            const at::Tensor& target = at::Tensor());
  std::map<std::string, at::Tensor> compute();
  // Each metric's value over every rank (sync, compute, unsync).
  std::map<std::string, at::Tensor> compute(Strategy& strategy);
  void reset();
  void sync(Strategy& strategy);
  void unsync();
  void to(const c10::Device& device);

  // {name: the metric's state dict}; loading checks that the same names are there.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  std::string key(const std::string& name) const;

  std::vector<Entry> metrics_;
  MetricCollectionOptions options_;
};

}  // namespace fulgur::metrics
