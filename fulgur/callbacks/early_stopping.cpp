#include "fulgur/callbacks/early_stopping.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/io/state_fields.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  if (options_.monitor.empty()) {
    throw ConfigError("EarlyStopping needs `monitor`: the name of a metric you log");
  }
  if (options_.mode != "min" && options_.mode != "max") {
    throw ConfigError("EarlyStopping(mode=\"" + options_.mode +
                      "\") is not valid; choose \"min\" or \"max\"");
  }
  if (options_.patience < 0) {
    throw ConfigError(fmt::format("EarlyStopping(patience={}) must be >= 0", options_.patience));
  }
  // As Lightning: a positive min_delta asks for more than any change, a negative one
  // counts a slight worsening as improvement.
  const double inf = std::numeric_limits<double>::infinity();
  best_score_ = options_.mode == "min" ? inf : -inf;
}

std::string EarlyStopping::state_key() const {
  return fmt::format("EarlyStopping{{'monitor': '{}', 'mode': '{}'}}", options_.monitor,
                     options_.mode);
}

void EarlyStopping::setup(Trainer& trainer, Module&, const std::string&) {
  if (options_.check_on_train_epoch_end) {
    check_on_train_epoch_end_ = *options_.check_on_train_epoch_end;
    return;
  }
  // Lightning: validation once per epoch, every epoch → check at the epoch's end (validation
  // has run by then); validation more or less often → check after each validation.
  const auto& interval = trainer.options().val_check_interval;
  const bool once_per_epoch =
      interval.is_fraction() && std::get<double>(interval.value) == 1.0;
  check_on_train_epoch_end_ =
      once_per_epoch && trainer.options().check_val_every_n_epoch.value_or(0) == 1;
}

bool EarlyStopping::should_skip(Trainer& trainer) const {
  return trainer.fn() != TrainerFn::Fitting || trainer.sanity_checking() ||
         trainer.options().fast_dev_run.batches > 0;
}

void EarlyStopping::on_train_epoch_end(Trainer& trainer, Module&) {
  if (check_on_train_epoch_end_ && !should_skip(trainer)) run_check(trainer);
}

void EarlyStopping::on_validation_end(Trainer& trainer, Module&) {
  if (!check_on_train_epoch_end_ && !should_skip(trainer)) run_check(trainer);
}

void EarlyStopping::run_check(Trainer& trainer) {
  const auto& metrics = trainer.callback_metrics();
  const auto found = metrics.find(options_.monitor);
  if (found == metrics.end()) {
    std::string available;
    for (const auto& [key, value] : metrics) {
      available += (available.empty() ? "`" : ", `") + key + "`";
    }
    const auto message = fmt::format(
        "EarlyStopping is conditioned on metric `{}`, which is not available. Log it, or "
        "monitor one of: {}",
        options_.monitor, available.empty() ? std::string("(nothing is logged)") : available);
    if (options_.strict) throw MisconfigurationError(message);
    if (options_.verbose) warn(message);
    return;
  }
  Outcome outcome = evaluate(found->second);
  // Any rank's stop stops every rank (each rank may see its own, unsynced value).
  const bool stop = trainer.strategy().reduce_boolean_decision(outcome.stop, /*all=*/false);
  if (stop) {
    trainer.set_should_stop(true);
    stopped_epoch_ = trainer.current_epoch();
    // As Lightning: a rank stopped by another rank's decision keeps NOT_STOPPED.
    if (outcome.stop) {
      stopping_reason_ = outcome.why;
      stopping_reason_message_ = outcome.reason;
    }
  }
  if (options_.verbose && !outcome.reason.empty() && trainer.is_global_zero()) {
    fmt::print("{}\n", outcome.reason);
  }
}

bool EarlyStopping::better(double a, double b) const {
  return options_.mode == "min" ? a < b : a > b;
}

EarlyStopping::Outcome EarlyStopping::evaluate(double current) {
  const auto& o = options_;
  const char* better_sign = o.mode == "min" ? "<" : ">";
  const char* worse_sign = o.mode == "min" ? ">" : "<";
  if (o.check_finite && !std::isfinite(current)) {
    return {true, fmt::format("Monitored metric {} = {} is not finite. Previous best value was "
                              "{:.3f}. Signaling Trainer to stop.",
                              o.monitor, current, best_score_),
            EarlyStoppingReason::NON_FINITE_METRIC};
  }
  if (o.stopping_threshold && better(current, *o.stopping_threshold)) {
    return {true, fmt::format("Stopping threshold reached: {} = {} {} {}. Signaling Trainer to "
                              "stop.",
                              o.monitor, current, better_sign, *o.stopping_threshold),
            EarlyStoppingReason::STOPPING_THRESHOLD};
  }
  if (o.divergence_threshold && better(*o.divergence_threshold, current)) {
    return {true, fmt::format("Divergence threshold reached: {} = {} {} {}. Signaling Trainer "
                              "to stop.",
                              o.monitor, current, worse_sign, *o.divergence_threshold),
            EarlyStoppingReason::DIVERGENCE_THRESHOLD};
  }
  const double shifted = o.mode == "min" ? current + o.min_delta : current - o.min_delta;
  if (better(shifted, best_score_)) {
    std::string reason =
        std::isfinite(best_score_)
            ? fmt::format("Metric {} improved by {:.3f} >= min_delta = {}. New best score: {:.3f}",
                          o.monitor, std::abs(best_score_ - current), std::abs(o.min_delta),
                          current)
            : fmt::format("Metric {} improved. New best score: {:.3f}", o.monitor, current);
    best_score_ = current;
    wait_count_ = 0;
    return {false, std::move(reason)};
  }
  ++wait_count_;
  if (wait_count_ >= o.patience) {
    return {true, fmt::format("Monitored metric {} did not improve in the last {} records. Best "
                              "score: {:.3f}. Signaling Trainer to stop.",
                              o.monitor, wait_count_, best_score_),
            EarlyStoppingReason::PATIENCE_EXHAUSTED};
  }
  return {};
}

c10::IValue EarlyStopping::state_dict() {
  auto state = make_checkpoint_dict();
  state.insert("wait_count", wait_count_);
  state.insert("stopped_epoch", stopped_epoch_);
  state.insert("best_score", best_score_);
  state.insert("patience", options_.patience);
  // Lightning 2.6 pickles its EarlyStoppingReason enum; its integer value crosses here.
  state.insert("stopping_reason", static_cast<int64_t>(stopping_reason_));
  state.insert("stopping_reason_message", stopping_reason_message_
                                              ? c10::IValue(*stopping_reason_message_)
                                              : c10::IValue());
  return state;
}

void EarlyStopping::load_state_dict(const c10::IValue& state) {
  // Everything read before anything changes, so a bad state leaves the callback as it was.
  const auto d = state_dict_of(state, "EarlyStopping");
  const double best = number_field(d, "best_score", "EarlyStopping");
  const int64_t wait = integer_field(d, "wait_count", "EarlyStopping");
  const int64_t stopped = integer_field(d, "stopped_epoch", "EarlyStopping");
  const int64_t patience = integer_field(d, "patience", "EarlyStopping");
  // Older checkpoints (Lightning < 2.6, fulgur before) have no reason: not stopped.
  auto reason = EarlyStoppingReason::NOT_STOPPED;
  if (d.contains("stopping_reason") && d.at("stopping_reason").isInt()) {
    const int64_t value = d.at("stopping_reason").toInt();
    if (value < 0 || value > 4) {
      throw CheckpointError(fmt::format(
          "EarlyStopping: the checkpoint's stopping_reason {} is not one of 0..4", value));
    }
    reason = static_cast<EarlyStoppingReason>(value);
  }
  std::optional<std::string> message;
  if (d.contains("stopping_reason_message") && d.at("stopping_reason_message").isString()) {
    message = d.at("stopping_reason_message").toStringRef();
  }
  best_score_ = best;
  wait_count_ = wait;
  stopped_epoch_ = stopped;
  options_.patience = patience;
  stopping_reason_ = reason;
  stopping_reason_message_ = std::move(message);
}

}  // namespace fulgur
