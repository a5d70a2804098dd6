#pragma once
// ThroughputMonitor (Lightning's): measures training throughput and writes it to the loggers
// every `log_every_n_steps`, at the end of an accumulation window (so the optimizer step is
// in the time). Keys, with Lightning's "train|" prefix and separator:
//   train|time, train|batches, train|samples                 (since training started)
//   train|device|batches_per_sec, train|device|samples_per_sec (this process, over the last
//                                                               `window_size` batches)
//   train|batches_per_sec, train|samples_per_sec             (all ranks; only when world_size > 1)
// Rates appear once the window is full. Time spent in validation inside fit does not count,
// and the device is synchronized before each reading, so asynchronous (CUDA) work is included.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct ThroughputMonitorOptions {
  // Samples in a batch; unset: the size of the batch's first dimension.
  std::function<int64_t(const Batch&)> batch_size_fn;
  int64_t window_size = 100;    // batches the rates are averaged over
  std::string separator = "|";
};

class ThroughputMonitor : public Callback {
 public:
  // Raises ConfigError when window_size < 2.
  explicit ThroughputMonitor(ThroughputMonitorOptions options = {});
  std::string name() const override { return "ThroughputMonitor"; }

  void on_train_start(Trainer& trainer, Module& module) override;
  void on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor& loss,
                          Batch& batch, int64_t batch_idx) override;
  void on_validation_start(Trainer& trainer, Module& module) override;
  void on_validation_end(Trainer& trainer, Module& module) override;

  // The values the last write sent (also for tests).
  const std::map<std::string, double>& last_metrics() const { return last_metrics_; }

 private:
  struct Reading {
    double time;  // training seconds so far
    int64_t batches;
    int64_t samples;
  };
  double training_seconds() const;
  std::map<std::string, double> compute(int world_size) const;

  ThroughputMonitorOptions options_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point paused_at_;
  std::chrono::duration<double> paused_{0};
  bool paused_now_ = false;
  int64_t batches_ = 0;
  int64_t samples_ = 0;
  std::deque<Reading> window_;
  std::map<std::string, double> last_metrics_;
};

}  // namespace fulgur
