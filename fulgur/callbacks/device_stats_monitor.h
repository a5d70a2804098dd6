#pragma once
// DeviceStatsMonitor (Lightning's): writes the accelerator's device statistics (CUDA: the
// caching allocator's counters; CPU: resident and peak memory of the process) to the loggers
// at the start and end of training batches, every `log_every_n_steps`, under
// "DeviceStatsMonitor.on_train_batch_start/<stat>" and ".../on_train_batch_end/<stat>".
// `cpu_stats` adds the CPU's statistics on a CUDA run (a CPU run has them anyway).
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct DeviceStatsMonitorOptions {
  bool cpu_stats = false;
};

class DeviceStatsMonitor : public Callback {
 public:
  explicit DeviceStatsMonitor(DeviceStatsMonitorOptions options = {}) : options_(options) {}
  std::string name() const override { return "DeviceStatsMonitor"; }

  // Raises MisconfigurationError when fitting without a logger.
  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_train_batch_start(Trainer& trainer, Module& module, Batch& batch,
                            int64_t batch_idx) override;
  void on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor& loss,
                          Batch& batch, int64_t batch_idx) override;

 private:
  void write(Trainer& trainer, const std::string& hook);

  DeviceStatsMonitorOptions options_;
};

}  // namespace fulgur
