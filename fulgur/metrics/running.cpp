#include "fulgur/metrics/running.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>

#include "fulgur/errors.h"

namespace fulgur::metrics {

Running::Running(std::unique_ptr<Metric> base, int64_t window)
    : Metric("Running"), base_(std::move(base)), window_(window) {
  if (!base_) throw ConfigError("Running needs a metric to wrap, not a null pointer");
  if (window_ < 1) {
    throw ConfigError(fmt::format("Running({}): window must be a positive integer, not {}",
                                  base_->name(), window_));
  }
  if (base_->full_state_update()) {
    throw ConfigError(fmt::format(
        "Running({}): the metric's update needs its accumulated states, so its batches cannot "
        "be merged afterwards; wrap a metric without full_state_update",
        base_->name()));
  }
  base_->reset();
  const auto states = base_->state_info();
  slots_.resize(window_);
  for (int64_t slot = 0; slot < window_; ++slot) {
    for (const auto& s : states) {
      slots_[slot].push_back(add_state(fmt::format("{}_{}", s.name, slot), s.initial, s.reduction));
    }
  }
}

void Running::update_state(const at::Tensor& input, const at::Tensor& target) {
  base_->reset();
  base_->update(input, target);
  const auto values = base_->state_values();
  const auto& slot = slots_[update_count() % window_];
  for (size_t i = 0; i < slot.size(); ++i) set_state(slot[i], values[i]);
  base_->reset();
}

at::Tensor Running::compute_value() {
  base_->reset();
  const int64_t filled = std::min(update_count(), window_);
  for (int64_t slot = 0; slot < filled; ++slot) {
    std::vector<at::Tensor> values;
    for (const StateId id : slots_[slot]) values.push_back(state_value(id));
    base_->merge_state(values, 1);
  }
  auto value = base_->compute();
  base_->reset();
  return value;
}

}  // namespace fulgur::metrics
