#include "fulgur/callbacks/throughput_monitor.h"

#include <fmt/format.h>

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

ThroughputMonitor::ThroughputMonitor(ThroughputMonitorOptions options)
    : options_(std::move(options)) {
  if (options_.window_size < 2) {
    throw ConfigError(fmt::format(
        "ThroughputMonitor(window_size={}) must be at least 2: a rate needs two readings",
        options_.window_size));
  }
}

void ThroughputMonitor::on_train_start(Trainer& trainer, Module&) {
  trainer.accelerator().synchronize(trainer.strategy().root_device());
  started_ = std::chrono::steady_clock::now();
  paused_ = std::chrono::duration<double>(0);
  paused_now_ = false;
  batches_ = samples_ = 0;
  window_.clear();
  last_metrics_.clear();
}

double ThroughputMonitor::training_seconds() const {
  const std::chrono::duration<double> since_start = std::chrono::steady_clock::now() - started_;
  return (since_start - paused_).count();
}

void ThroughputMonitor::on_validation_start(Trainer& trainer, Module&) {
  // Validation inside fit pauses the clock (not the sanity check: training has not started).
  if (trainer.fn() != TrainerFn::Fitting || trainer.sanity_checking() || paused_now_) return;
  trainer.accelerator().synchronize(trainer.strategy().root_device());
  paused_at_ = std::chrono::steady_clock::now();
  paused_now_ = true;
}

void ThroughputMonitor::on_validation_end(Trainer& trainer, Module&) {
  if (!paused_now_) return;
  trainer.accelerator().synchronize(trainer.strategy().root_device());
  paused_ += std::chrono::steady_clock::now() - paused_at_;
  paused_now_ = false;
}

void ThroughputMonitor::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&,
                                           Batch& batch, int64_t) {
  trainer.accelerator().synchronize(trainer.strategy().root_device());
  ++batches_;
  samples_ += options_.batch_size_fn ? options_.batch_size_fn(batch) : batch.data.size(0);
  window_.push_back({training_seconds(), batches_, samples_});
  if (static_cast<int64_t>(window_.size()) > options_.window_size) window_.pop_front();
  // Only at the end of an accumulation window: the optimizer step belongs in the time.
  if (trainer.fit_loop().epoch_loop.should_accumulate()) return;
  if (!trainer.logger_connector().should_update_logs()) return;
  last_metrics_ = compute(trainer.world_size());
  if (!trainer.is_global_zero()) return;
  for (const auto& logger : trainer.loggers()) {
    logger->log_metrics(last_metrics_, trainer.batches_that_stepped());
  }
}

std::map<std::string, double> ThroughputMonitor::compute(int world_size) const {
  const std::string prefix = "train" + options_.separator;
  const Reading& last = window_.back();
  std::map<std::string, double> metrics = {
      {prefix + "time", last.time},
      {prefix + "batches", static_cast<double>(last.batches)},
      {prefix + "samples", static_cast<double>(last.samples)},
  };
  if (static_cast<int64_t>(window_.size()) < options_.window_size) return metrics;
  const Reading& first = window_.front();
  const double seconds = last.time - first.time;
  if (seconds <= 0) return metrics;
  const double batches_per_sec = static_cast<double>(last.batches - first.batches) / seconds;
  const double samples_per_sec = static_cast<double>(last.samples - first.samples) / seconds;
  const std::string device = prefix + "device" + options_.separator;
  metrics[device + "batches_per_sec"] = batches_per_sec;
  metrics[device + "samples_per_sec"] = samples_per_sec;
  if (world_size > 1) {
    metrics[prefix + "batches_per_sec"] = batches_per_sec * world_size;
    metrics[prefix + "samples_per_sec"] = samples_per_sec * world_size;
  }
  return metrics;
}

}  // namespace fulgur
