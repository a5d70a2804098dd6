#include "fulgur/callbacks/device_stats_monitor.h"

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

void DeviceStatsMonitor::setup(Trainer& trainer, Module&, const std::string& stage) {
  if (stage != "fit") return;
  if (trainer.loggers().empty()) {
    throw MisconfigurationError(
        "Cannot use the DeviceStatsMonitor callback with a Trainer that has no logger.");
  }
}

void DeviceStatsMonitor::on_train_batch_start(Trainer& trainer, Module&, Batch&, int64_t) {
  write(trainer, "on_train_batch_start");
}

void DeviceStatsMonitor::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&,
                                            Batch&, int64_t) {
  write(trainer, "on_train_batch_end");
}

void DeviceStatsMonitor::write(Trainer& trainer, const std::string& hook) {
  if (!trainer.logger_connector().should_update_logs()) return;
  const auto device = trainer.strategy().root_device();
  auto stats = trainer.accelerator().device_stats(device);
  if (options_.cpu_stats && !device.is_cpu()) {
    stats.merge(CPUAccelerator().device_stats(c10::Device(c10::kCPU)));
  }
  const std::string prefix = name() + "." + hook + "/";
  std::map<std::string, double> metrics;
  for (const auto& [key, value] : stats) metrics[prefix + key] = value;
  if (metrics.empty() || !trainer.is_global_zero()) return;
  for (const auto& logger : trainer.loggers()) {
    logger->log_metrics(metrics, trainer.batches_that_stepped());
  }
}

}  // namespace fulgur
