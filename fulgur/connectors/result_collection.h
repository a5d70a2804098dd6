#pragma once
// ResultCollection: what `Module::log` recorded during one stage (a training epoch, a
// validation or test run). Values stay on their device: accumulating an epoch mean is a tensor
// add, never a host read. Keys are as Lightning names them: `name`, or `name_step` and
// `name_epoch` when a value is logged both per step and per epoch.
#include <map>
#include <string>

#include <torch/types.h>

#include "fulgur/loops/log_options.h"

namespace fulgur {

// A log call after the hook's defaults were applied.
struct ResolvedLog {
  bool on_step = false;
  bool on_epoch = false;
  bool prog_bar = false;
  bool logger = true;
  ReduceFx reduce_fx = ReduceFx::Mean;
};

class ResultCollection {
 public:
  void log(const std::string& name, const torch::Tensor& value, const ResolvedLog& options,
           int64_t batch_size);
  // Values logged per step since the last call to `take_step_values`, as (key, value, options).
  struct Value {
    torch::Tensor value;
    bool prog_bar = false;
    bool logger = true;
  };
  std::map<std::string, Value> take_step_values();
  // The epoch-level reduction of every value logged with on_epoch.
  std::map<std::string, Value> epoch_values() const;
  bool empty() const { return entries_.empty(); }
  void reset() { entries_.clear(); }

 private:
  struct Entry {
    ResolvedLog options;
    torch::Tensor last;         // latest value, detached
    torch::Tensor accumulated;  // Σ value·weight (mean), Σ value (sum), running min/max
    double weight = 0;          // Σ batch sizes, for the weighted mean
    bool step_pending = false;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace fulgur
