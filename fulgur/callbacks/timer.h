#pragma once
// Timer: stops training once `duration` has elapsed (Lightning's Timer, added by `max_time`),
// and times the training, validation and test stages. The training time is saved in
// checkpoints, so a resumed fit goes on counting from it (and stops at once if it is spent).
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

enum class TimerInterval { Step, Epoch };

struct TimerOptions {
  // When the limit is checked: after every training batch, or at each epoch's end.
  TimerInterval interval = TimerInterval::Step;
  // Print "Time limit reached. ..." when it stops training.
  bool verbose = true;
};

class Timer : public Callback {
 public:
  explicit Timer(std::chrono::duration<double> duration, TimerOptions options = {})
      : duration_(duration), options_(options) {}
  // Parses Lightning's "DD:HH:MM:SS"; raises ConfigError otherwise.
  static std::chrono::duration<double> parse(const std::string& text);
  std::string name() const override { return "Timer"; }
  const TimerOptions& options() const { return options_; }

  // Seconds spent in a stage ("train", "validate" or "test"); training time includes what a
  // checkpoint this fit resumed from had counted.
  double time_elapsed(const std::string& stage = "train") const;
  double time_remaining(const std::string& stage = "train") const;

  void on_fit_start(Trainer& trainer, Module&) override;
  void on_train_start(Trainer&, Module&) override { start("train"); }
  void on_train_end(Trainer&, Module&) override { end("train"); }
  void on_validation_start(Trainer&, Module&) override { start("validate"); }
  void on_validation_end(Trainer&, Module&) override { end("validate"); }
  void on_test_start(Trainer&, Module&) override { start("test"); }
  void on_test_end(Trainer&, Module&) override { end("test"); }
  void on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                          int64_t) override;
  void on_train_epoch_end(Trainer& trainer, Module&) override;

  // Lightning's {"time_elapsed": {stage: seconds}}.
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Span {
    std::optional<Clock::time_point> start, end;
  };
  void start(const std::string& stage) { spans_[stage] = {Clock::now(), std::nullopt}; }
  void end(const std::string& stage) { spans_[stage].end = Clock::now(); }
  void check(Trainer& trainer) const;

  std::chrono::duration<double> duration_;
  TimerOptions options_;
  std::map<std::string, Span> spans_;
  double offset_ = 0;  // training seconds counted before this fit (from a checkpoint)
};

}  // namespace fulgur
