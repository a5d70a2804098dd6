#include "fulgur/callbacks/timer.h"

#include <fmt/format.h>

#include <iostream>
#include <regex>

#include "fulgur/errors.h"
#include "fulgur/io/state_fields.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

std::chrono::duration<double> Timer::parse(const std::string& text) {
  static const std::regex pattern(R"((\d+):(\d{1,2}):(\d{1,2}):(\d{1,2}))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) {
    throw ConfigError("max_time=\"" + text +
                      "\" is not a duration; write it as \"DD:HH:MM:SS\", e.g. \"00:12:00:00\"");
  }
  const double seconds = std::stod(m[1]) * 86400 + std::stod(m[2]) * 3600 +
                         std::stod(m[3]) * 60 + std::stod(m[4]);
  return std::chrono::duration<double>(seconds);
}

double Timer::time_elapsed(const std::string& stage) const {
  const double offset = stage == "train" ? offset_ : 0.0;
  const auto span = spans_.find(stage);
  if (span == spans_.end() || !span->second.start) return offset;
  const auto end = span->second.end.value_or(Clock::now());
  return std::chrono::duration<double>(end - *span->second.start).count() + offset;
}

double Timer::time_remaining(const std::string& stage) const {
  return duration_.count() - time_elapsed(stage);
}

void Timer::check(Trainer& trainer) const {
  // Ranks' clocks differ: rank 0's decides for all, so they stop at the same batch.
  if (!trainer.strategy().broadcast_decision(time_elapsed() >= duration_.count())) return;
  trainer.set_should_stop(true);
  if (options_.verbose && trainer.is_global_zero()) {
    const auto seconds = static_cast<int64_t>(time_elapsed());
    // Python's str(timedelta): H:MM:SS.
    std::cout << fmt::format("Time limit reached. Elapsed time is {}:{:02}:{:02}. Signaling "
                             "Trainer to stop.\n",
                             seconds / 3600, seconds / 60 % 60, seconds % 60);
  }
}

// After a checkpoint was restored: a training time already spent stops the fit before it starts.
void Timer::on_fit_start(Trainer& trainer, Module&) { check(trainer); }

void Timer::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&, int64_t) {
  if (options_.interval == TimerInterval::Step) check(trainer);
}

void Timer::on_train_epoch_end(Trainer& trainer, Module&) {
  if (options_.interval == TimerInterval::Epoch) check(trainer);
}

c10::IValue Timer::state_dict() {
  auto elapsed = make_checkpoint_dict();
  for (const char* stage : {"train", "sanity_check", "validate", "test", "predict"}) {
    elapsed.insert(stage, time_elapsed(stage));
  }
  auto state = make_checkpoint_dict();
  state.insert("time_elapsed", elapsed);
  return state;
}

void Timer::load_state_dict(const c10::IValue& state) {
  const auto d = state_dict_of(state, "Timer");
  // As Lightning: a state without the entry counts from zero.
  if (!d.contains("time_elapsed")) return;
  const auto elapsed = state_dict_of(d.at("time_elapsed"), "Timer");
  offset_ = elapsed.contains("train") ? number_field(elapsed, "train", "Timer") : 0.0;
}

}  // namespace fulgur
