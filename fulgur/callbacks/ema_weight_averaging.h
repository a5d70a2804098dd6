#pragma once
// EMAWeightAveraging: Lightning's exponential moving average of the weights, a WeightAveraging
// with ema_avg_fn(decay) updated after every `update_every_n_steps`-th optimizer step from
// `update_starting_at_step` on (step indices from 0), and after every epoch from
// `update_starting_at_epoch` on when that is set.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/callbacks/weight_averaging.h"

namespace fulgur {

struct EMAWeightAveragingOptions {
  std::optional<torch::Device> device;  // nullopt: the Module's device
  bool use_buffers = true;
  double decay = 0.999;
  int64_t update_every_n_steps = 1;  // 0: no update after steps
  std::optional<int64_t> update_starting_at_step;
  std::optional<int64_t> update_starting_at_epoch;  // nullopt: no update after epochs
};

class EMAWeightAveraging : public WeightAveraging {
 public:
  // Raises MisconfigurationError for a decay outside [0, 1] or a negative update_every_n_steps.
  explicit EMAWeightAveraging(EMAWeightAveragingOptions options = {});
  std::string name() const override { return "EMAWeightAveraging"; }
  bool should_update(std::optional<int64_t> step_idx,
                     std::optional<int64_t> epoch_idx) const override;
  const EMAWeightAveragingOptions& options() const { return options_; }

 private:
  EMAWeightAveragingOptions options_;
};

}  // namespace fulgur
