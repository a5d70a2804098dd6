#include "fulgur/callbacks/timer.h"

#include <regex>

#include "fulgur/errors.h"
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

void Timer::on_train_start(Trainer&, Module&) { start_ = std::chrono::steady_clock::now(); }

double Timer::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Timer::check(Trainer& trainer) const {
  // Ranks' clocks differ: rank 0's decides for all, so they stop at the same batch.
  if (trainer.strategy().broadcast_decision(elapsed_seconds() >= duration_.count())) {
    trainer.set_should_stop(true);
  }
}

void Timer::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&, int64_t) {
  check(trainer);
}

void Timer::on_train_epoch_end(Trainer& trainer, Module&) { check(trainer); }

}  // namespace fulgur
