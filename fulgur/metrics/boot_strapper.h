#pragma once
// BootStrapper (torchmetrics' wrapper): a metric's uncertainty by the bootstrap. It keeps
// num_bootstraps copies of the metric (made by the factory, as torchmetrics deep-copies its base
// metric); each update() resamples the batch along dimension 0 with replacement, once per copy,
// and feeds the copy its sample: "poisson" draws how often each row is taken from Poisson(1)
// (a copy whose draw is empty skips the batch), "multinomial" draws as many rows as the batch
// has. Draws use LibTorch's default generator, the way torchmetrics uses torch's, so
// torch::manual_seed makes them repeatable. compute() gives the copies' values' "mean", "std"
// (unbiased), "quantile" and "raw" (the values stacked) as the options ask: a map for
// Module::log_dict.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct BootStrapperOptions {
  int64_t num_bootstraps = 10;
  bool mean = true;
  bool std = true;
  std::optional<double> quantile;  // in [0, 1]
  bool raw = false;
  std::string sampling_strategy = "poisson";  // or "multinomial"
};

class BootStrapper {
 public:
  using Factory = std::function<std::unique_ptr<Metric>()>;

  // Raises ConfigError for a null factory or one that returns null, num_bootstraps < 1, a
  // quantile outside [0, 1], or an unknown sampling_strategy.
  explicit BootStrapper(Factory make_metric, BootStrapperOptions options = {});

  int64_t num_bootstraps() const { return static_cast<int64_t>(copies_.size()); }
  // Copy `index`; MetricError outside [0, num_bootstraps).
  Metric& at(int64_t index) const;

  void update(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  // update(), and the statistics of the copies' values on their samples of this batch alone.
  std::map<std::string, at::Tensor> forward(const at::Tensor& input,
                                            const at::Tensor& target = at::Tensor());
  std::map<std::string, at::Tensor> compute();
  // The statistics of every copy synced over every rank.
  std::map<std::string, at::Tensor> compute(Strategy& strategy);
  void reset();
  void sync(Strategy& strategy);
  void unsync();
  void to(const c10::Device& device);

  // A list of the copies' state dicts; loading checks that there are as many.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  // Row indices for one copy's sample of a batch of `rows`.
  at::Tensor draw(int64_t rows) const;
  std::map<std::string, at::Tensor> statistics(const std::vector<at::Tensor>& values) const;

  std::vector<std::unique_ptr<Metric>> copies_;
  BootStrapperOptions options_;
};

}  // namespace fulgur::metrics
