#pragma once
// Timer: stops training once `duration` has elapsed (Lightning's Timer, added by `max_time`).
// Checked after every training batch and at every epoch end.
#include <chrono>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

class Timer : public Callback {
 public:
  explicit Timer(std::chrono::duration<double> duration) : duration_(duration) {}
  // Parses Lightning's "DD:HH:MM:SS"; raises ConfigError otherwise.
  static std::chrono::duration<double> parse(const std::string& text);
  std::string name() const override { return "Timer"; }
  void on_train_start(Trainer&, Module&) override;
  void on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                          int64_t) override;
  void on_train_epoch_end(Trainer& trainer, Module&) override;
  double elapsed_seconds() const;

 private:
  void check(Trainer& trainer) const;
  std::chrono::duration<double> duration_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace fulgur
