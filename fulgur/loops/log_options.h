#pragma once
// Options of `Module::log`, with Lightning's names. Unset on_step/on_epoch take the default of
// the hook that logs (training_step: per step; validation/test steps and epoch hooks: per epoch).
#include <cstdint>
#include <optional>

namespace fulgur {

enum class ReduceFx { Mean, Sum, Min, Max };

struct LogOptions {
  std::optional<bool> on_step;
  std::optional<bool> on_epoch;
  bool prog_bar = false;
  bool logger = true;
  ReduceFx reduce_fx = ReduceFx::Mean;
  // Reduce the value across ranks before it is recorded.
  bool sync_dist = false;
  // Weight of this value in the epoch mean; defaults to the current batch's size.
  std::optional<int64_t> batch_size;
};

}  // namespace fulgur
