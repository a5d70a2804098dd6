#include "fulgur/callbacks/ema_weight_averaging.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

EMAWeightAveragingOptions checked(EMAWeightAveragingOptions options) {
  if (!(options.decay >= 0.0 && options.decay <= 1.0)) {
    throw MisconfigurationError(
        fmt::format("EMAWeightAveraging: decay must be in [0, 1], got {}", options.decay));
  }
  if (options.update_every_n_steps < 0) {
    throw MisconfigurationError(
        fmt::format("EMAWeightAveraging: update_every_n_steps must be >= 0 (0: never), got {}",
                    options.update_every_n_steps));
  }
  return options;
}

}  // namespace

EMAWeightAveraging::EMAWeightAveraging(EMAWeightAveragingOptions options)
    : WeightAveraging({.device = options.device,
                       .use_buffers = options.use_buffers,
                       .avg_fn = ema_avg_fn(checked(options).decay)}),
      options_(std::move(options)) {}

bool EMAWeightAveraging::should_update(std::optional<int64_t> step_idx,
                                       std::optional<int64_t> epoch_idx) const {
  if (step_idx) {
    const bool started =
        !options_.update_starting_at_step || *step_idx >= *options_.update_starting_at_step;
    const bool due =
        options_.update_every_n_steps > 0 && *step_idx % options_.update_every_n_steps == 0;
    if (started && due) return true;
  }
  return epoch_idx && options_.update_starting_at_epoch &&
         *epoch_idx >= *options_.update_starting_at_epoch;
}

}  // namespace fulgur
