#pragma once
// ReduceLROnPlateau (torch.optim.lr_scheduler.ReduceLROnPlateau): multiplies each param
// group's rate by `factor` (never below its min_lr) once the monitored metric has not improved
// for more than `patience` periods, then waits `cooldown` periods before counting again. An
// improvement is a value better than the best so far by more than `threshold` (relative to the
// best in "rel" mode, absolute in "abs" mode). A reduction smaller than `eps` is skipped.
//
// step(metric) needs the metric (needs_metric() is true): the Trainer passes the value of the
// scheduler config's `monitor`. The state keeps the best value and the counters under
// PyTorch's names (best, num_bad_epochs, cooldown_counter, ...), so a resumed run reduces at
// the same period as an uninterrupted one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // "min": lower is better; "max": higher is better
  double factor = 0.1;       // new rate = rate * factor; in [0, 1)
  int64_t patience = 10;     // periods without improvement tolerated
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // "rel" or "abs"
  int64_t cooldown = 0;                // periods after a reduction that count as neither
  std::vector<double> min_lr = {0.0};  // one for all param groups, or one per group
  double eps = 1e-8;
};

class ReduceLROnPlateau : public LRScheduler {
 public:
  // Raises ConfigError for an unknown mode or threshold_mode, factor outside [0, 1), a negative
  // patience or cooldown, or a min_lr count that is neither 1 nor the number of param groups.
  explicit ReduceLROnPlateau(torch::optim::Optimizer& optimizer,
                             ReduceLROnPlateauOptions options = {});
  std::string name() const override { return "ReduceLROnPlateau"; }
  bool needs_metric() const override { return true; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // min_lrs, mode, threshold_mode and the counters: best, num_bad_epochs, cooldown_counter
  // (and mode_worse, which PyTorch keeps too).
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  struct Counters {
    double best = 0.0;
    int64_t num_bad_epochs = 0;
    int64_t cooldown_counter = 0;
  };
  // The options and counters in `state`; raises CheckpointError naming `source`.
  std::pair<ReduceLROnPlateauOptions, Counters> parse_saved(const c10::impl::GenericDict& state,
                                                            const std::string& source) const;
  bool is_better(double value) const;
  double mode_worse() const;

  ReduceLROnPlateauOptions options_;  // min_lr has one value per group
  Counters counters_;
};

}  // namespace fulgur
