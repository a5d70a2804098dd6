#pragma once
// ResultCollection: what `Module::log` recorded during one stage (a training epoch, a
// validation or test run). Values stay on their device: accumulating an epoch mean is a tensor
// add, never a host read. Keys are as Lightning names them: `name`, or `name_step` and
// `name_epoch` when a value is logged both per step and per epoch.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <torch/types.h>

#include "fulgur/loops/log_options.h"

namespace fulgur {
namespace metrics {
class Metric;
}  // namespace metrics

// A log call after the hook's defaults were applied.
struct ResolvedLog {
  bool on_step = false;
  bool on_epoch = false;
  bool prog_bar = false;
  bool logger = true;
  ReduceFx reduce_fx = ReduceFx::Mean;
  bool sync_dist = false;
};

class ResultCollection {
 public:
  // Reduces a value across ranks with `op` (the identity in one process).
  using SyncFn = std::function<torch::Tensor(const torch::Tensor& value, ReduceFx op)>;
  // sync_dist values are reduced with it: a step value when it is logged, the epoch value once
  // when the epoch's values are read, from every rank's accumulated sum and weight (so the
  // mean is exact with uneven batches).
  void set_sync(SyncFn sync) { sync_ = std::move(sync); }

  void log(const std::string& name, const torch::Tensor& value, const ResolvedLog& options,
           int64_t batch_size);
  // A metric object: its step value is `batch_value` (the metric on this batch alone); its
  // epoch value is computed from its own state when the epoch's values are read, and reset()
  // resets the metric (Lightning's handling of torchmetrics).
  void log_metric(const std::string& name, std::shared_ptr<metrics::Metric> metric,
                  const torch::Tensor& batch_value, const ResolvedLog& options);
  // How a metric's epoch value is computed (synchronised across ranks by the connector).
  using MetricComputeFn = std::function<torch::Tensor(metrics::Metric& metric)>;
  void set_metric_compute(MetricComputeFn compute) { compute_metric_ = std::move(compute); }
  // Values logged per step since the last call to `take_step_values`, as (key, value, options).
  struct Value {
    torch::Tensor value;
    bool prog_bar = false;
    bool logger = true;
    std::string name;  // as logged: the key without the "_step" / "_epoch" it was forked into
  };
  std::map<std::string, Value> take_step_values();
  // The epoch-level reduction of every value logged with on_epoch.
  std::map<std::string, Value> epoch_values() const;
  bool empty() const { return entries_.empty(); }
  void reset();

 private:
  struct Entry {
    ResolvedLog options;
    torch::Tensor last;         // latest value, detached
    torch::Tensor accumulated;  // Σ value·weight (mean), Σ value (sum), running min/max
    double weight = 0;          // Σ batch sizes, for the weighted mean
    bool step_pending = false;
    std::shared_ptr<metrics::Metric> metric;  // set for a logged metric object
  };
  std::map<std::string, Entry> entries_;
  SyncFn sync_;
  MetricComputeFn compute_metric_;
};

}  // namespace fulgur
