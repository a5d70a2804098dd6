#pragma once
// RunningAggregator: what torchmetrics' running aggregation metrics (RunningMean, RunningSum)
// share: the value over the last `window` update() calls only, not everything since the reset.
// Each update writes its batch's states into one slot of a [window] state, overwriting the
// oldest, so memory stays constant however long it runs. Across processes the slots are summed
// slot by slot: every rank must have made the same number of updates (as in torchmetrics).
// forward() returns the batch alone, as every metric's. The NaN handling is BaseAggregator's; its
// count of left-out values (warned at compute()) covers every update since the reset.
#include <cstdint>
#include <string>
#include <variant>

#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

struct RunningOptions {
  int64_t window = 5;  // how many of the latest update() calls count
  std::variant<std::string, double> nan_strategy = std::string("warn");
};

class RunningAggregator : public BaseAggregator {
 public:
  int64_t window() const { return window_; }

 protected:
  // Raises ConfigError for a window below 1 (and what BaseAggregator rejects).
  RunningAggregator(std::string name, const RunningOptions& options);
  // A float64 state of `window` slots, summed slot by slot across processes.
  StateId add_window_state(const std::string& name);
  // Puts this update's value of a window state into its slot.
  void put(StateId id, const at::Tensor& value);
  // A window state over its slots: the sum of the last `window` updates' values.
  at::Tensor window_sum(StateId id);
  // The slots are overwritten in place, so forward() cannot merge a batch's fresh states into
  // them: it updates these states, then computes the batch alone apart.
  bool full_state_update() const override { return true; }

 private:
  int64_t window_;
};

}  // namespace fulgur::metrics
