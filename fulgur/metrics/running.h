#pragma once
// Running (torchmetrics' wrapper): any metric over the last `window` updates only, e.g. the
// accuracy of the last 5 batches for a progress bar. Each update() feeds the batch to the
// wrapped metric alone and keeps its states in a slot of its own (the oldest slot is
// overwritten); compute() merges the slots by each state's reduction (torchmetrics'
// merge_state) and computes the wrapped metric on them. The slots are this metric's states
// ("<state>_<slot>", with the wrapped states' reductions), so sync() merges every rank's last
// `window` updates and state_dict() carries the window. RunningMean and RunningSum are the
// constant-memory forms for plain values.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class Running : public Metric {
 public:
  // Raises ConfigError for a null metric, a window below 1, or a metric whose update needs its
  // accumulated states (full_state_update: its batches cannot be merged afterwards).
  explicit Running(std::unique_ptr<Metric> base, int64_t window = 5);

  const Metric& base() const { return *base_; }
  int64_t window() const { return window_; }
  bool is_scalar() const override { return base_->is_scalar(); }
  std::optional<bool> higher_is_better() const override { return base_->higher_is_better(); }
  // update() overwrites a slot, so forward() must not merge a batch in by the reductions.
  bool full_state_update() const override { return true; }

 protected:
  void update_state(const at::Tensor& input, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  std::unique_ptr<Metric> base_;
  int64_t window_;
  std::vector<std::vector<StateId>> slots_;  // slots_[slot][i]: the base's state i
};

}  // namespace fulgur::metrics
