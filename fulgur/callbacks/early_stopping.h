#pragma once
// EarlyStopping (Lightning's): stops fitting when a monitored metric stops improving for
// `patience` checks, reaches `stopping_threshold`, crosses `divergence_threshold`, or (with
// `check_finite`) becomes NaN or infinite. A check runs at the end of each training epoch
// (after the Module's on_train_epoch_end, so validation metrics of that epoch are there), or
// after each validation when validation runs more or less often than once per epoch.
// Under DDP a stop decided on any rank stops every rank. `wait_count`, `stopped_epoch`,
// `best_score`, `patience`, `stopping_reason` and its message are saved in checkpoints.
#include <optional>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

// Why the last check stopped the fit (Lightning 2.6's EarlyStoppingReason, same values).
enum class EarlyStoppingReason : int64_t {
  NOT_STOPPED = 0,
  STOPPING_THRESHOLD = 1,
  DIVERGENCE_THRESHOLD = 2,
  PATIENCE_EXHAUSTED = 3,
  NON_FINITE_METRIC = 4,
};

struct EarlyStoppingOptions {
  std::string monitor;      // required: a key of trainer.callback_metrics()
  double min_delta = 0.0;   // the least change that counts as an improvement
  int64_t patience = 3;     // checks without improvement before stopping
  bool verbose = false;     // print each check's outcome (rank 0)
  std::string mode = "min"; // "min" or "max"
  bool strict = true;       // a missing metric is an error (else the check is skipped)
  bool check_finite = true; // stop when the metric is NaN or infinite
  std::optional<double> stopping_threshold;    // stop once the metric is better than this
  std::optional<double> divergence_threshold;  // stop once the metric is worse than this
  std::optional<bool> check_on_train_epoch_end;  // unset: decided at setup, as Lightning
};

class EarlyStopping : public Callback {
 public:
  // Raises ConfigError for an empty monitor, an unknown mode or a negative patience.
  explicit EarlyStopping(EarlyStoppingOptions options);
  std::string name() const override { return "EarlyStopping"; }
  std::string state_key() const override;
  bool runs_after_module_on_train_epoch_end() const override { return true; }

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_train_epoch_end(Trainer& trainer, Module& module) override;
  void on_validation_end(Trainer& trainer, Module& module) override;

  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

  int64_t wait_count() const { return wait_count_; }
  int64_t stopped_epoch() const { return stopped_epoch_; }
  double best_score() const { return best_score_; }
  EarlyStoppingReason stopping_reason() const { return stopping_reason_; }
  // The message of the check that stopped the fit; nullopt while not stopped.
  const std::optional<std::string>& stopping_reason_message() const {
    return stopping_reason_message_;
  }
  const EarlyStoppingOptions& options() const { return options_; }

 private:
  struct Outcome {
    bool stop = false;
    std::string reason;  // empty when nothing worth saying happened
    EarlyStoppingReason why = EarlyStoppingReason::NOT_STOPPED;
  };
  bool should_skip(Trainer& trainer) const;
  void run_check(Trainer& trainer);
  Outcome evaluate(double current);
  bool better(double a, double b) const;

  EarlyStoppingOptions options_;
  bool check_on_train_epoch_end_ = true;
  int64_t wait_count_ = 0;
  int64_t stopped_epoch_ = 0;
  double best_score_;
  EarlyStoppingReason stopping_reason_ = EarlyStoppingReason::NOT_STOPPED;
  std::optional<std::string> stopping_reason_message_;
};

}  // namespace fulgur
