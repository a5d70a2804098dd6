#pragma once
// GradientAccumulationScheduler (Lightning's): changes accumulate_grad_batches by epoch.
// `scheduling` maps an epoch (0-based) to the number of batches accumulated from that epoch on;
// {{0, 1}, {4, 2}, {8, 4}} accumulates 1 batch in epochs 0-3, 2 in 4-7, then 4. Without an
// entry for epoch 0, epochs before the first key accumulate 1. Not for manual optimization,
// and not together with the Trainer's own accumulate_grad_batches.
#include <cstdint>
#include <map>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

class GradientAccumulationScheduler : public Callback {
 public:
  // Raises ConfigError for an empty map, a negative epoch or a factor below 1.
  explicit GradientAccumulationScheduler(std::map<int64_t, int64_t> scheduling);
  std::string name() const override { return "GradientAccumulationScheduler"; }

  // Raises MisconfigurationError under manual optimization or when the Trainer accumulates too.
  void on_train_start(Trainer& trainer, Module& module) override;
  void on_train_epoch_start(Trainer& trainer, Module& module) override;

  int64_t accumulate_grad_batches_for(int64_t epoch) const;
  const std::map<int64_t, int64_t>& scheduling() const { return scheduling_; }

 private:
  std::map<int64_t, int64_t> scheduling_;
};

}  // namespace fulgur
