#pragma once
// Every Trainer option, with Lightning's names and defaults. Use designated initializers:
//   fulgur::Trainer trainer({.accelerator = "cpu", .max_epochs = 3, .limit_val_batches = 0.25});
// (Members must be given in declaration order, as C++ requires.)
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "fulgur/accelerators/devices.h"
#include "fulgur/connectors/flags.h"
#include "fulgur/loggers/logger.h"

namespace fulgur {

class Callback;
class Profiler;

// `profiler`: "simple" (a SimpleProfiler), a Profiler instance, or unset (nothing is timed).
using ProfilerFlag = NamedOrInstance<Profiler>;

// A batch limit or interval as Lightning reads it: a double is a fraction of the epoch, an
// integer is a count of batches. `1.0` means "all", `1` means "one batch".
struct BatchCount {
  std::variant<double, int64_t> value = 1.0;
  BatchCount() = default;
  BatchCount(double fraction) : value(fraction) {}
  BatchCount(int count) : value(static_cast<int64_t>(count)) {}
  BatchCount(int64_t count) : value(count) {}
  bool is_fraction() const { return std::holds_alternative<double>(value); }
  std::string to_string() const;
};

// `fast_dev_run`: false, true (one batch of each), or N batches.
struct FastDevRun {
  int64_t batches = 0;  // 0 = off
  FastDevRun() = default;
  FastDevRun(bool on) : batches(on ? 1 : 0) {}
  FastDevRun(int n) : batches(n) {}
  FastDevRun(int64_t n) : batches(n) {}
};

// `logger`: true (the default CSV logger), false (none), or the loggers to use.
struct LoggerFlag {
  bool enabled = true;
  std::vector<std::shared_ptr<Logger>> loggers;
  LoggerFlag() = default;
  LoggerFlag(bool on) : enabled(on) {}
  template <typename L, typename = std::enable_if_t<std::is_base_of_v<Logger, L>>>
  LoggerFlag(std::shared_ptr<L> logger) : enabled(logger != nullptr) {
    if (logger) loggers.push_back(std::move(logger));
  }
  LoggerFlag(std::vector<std::shared_ptr<Logger>> list);
};

struct TrainerOptions {
  // ---- hardware (interpreted by the AcceleratorConnector) ----
  AcceleratorFlag accelerator = "auto";
  StrategyFlag strategy = "auto";
  Devices devices = "auto";
  int num_nodes = 1;
  PrecisionFlag precision{};  // unset = "32-true"
  std::vector<Plugin> plugins{};
  // Under a parallel strategy, fulgur::nn::SyncBatchNorm layers normalize with the statistics
  // of the whole global batch (see fulgur/layer_sync/torch_sync_batch_norm.h).
  bool sync_batchnorm = false;

  // ---- what runs alongside ----
  LoggerFlag logger = true;
  std::vector<std::shared_ptr<Callback>> callbacks;

  // ---- how long ----
  FastDevRun fast_dev_run = false;
  std::optional<int64_t> max_epochs;  // unset: 1000 unless max_steps or max_time is set
  std::optional<int64_t> min_epochs;
  int64_t max_steps = -1;
  std::optional<int64_t> min_steps;
  std::optional<std::string> max_time;  // "DD:HH:MM:SS"

  // ---- how much of each epoch ----
  BatchCount limit_train_batches = 1.0;
  BatchCount limit_val_batches = 1.0;
  BatchCount limit_test_batches = 1.0;
  BatchCount limit_predict_batches = 1.0;
  BatchCount overfit_batches = 0.0;
  BatchCount val_check_interval = 1.0;
  std::optional<int64_t> check_val_every_n_epoch = 1;
  int64_t num_sanity_val_steps = 2;  // -1 = the whole validation set
  int64_t log_every_n_steps = 50;

  // ---- switches ----
  bool enable_checkpointing = true;
  bool enable_progress_bar = true;
  bool enable_model_summary = true;

  // ---- optimization ----
  int64_t accumulate_grad_batches = 1;
  std::optional<double> gradient_clip_val;
  std::optional<std::string> gradient_clip_algorithm;  // "norm" (default) or "value"

  // ---- reproducibility and speed ----
  std::optional<bool> deterministic;
  std::optional<bool> benchmark;
  bool inference_mode = true;
  ProfilerFlag profiler{};
  // Autograd's anomaly detection while training: a backward that makes a NaN raises, naming
  // the function (slow; for debugging).
  bool detect_anomaly = false;
  // Ask the data hooks for fresh train/val loaders every N epochs (0 = never).
  int64_t reload_dataloaders_every_n_epochs = 0;

  std::string default_root_dir;  // "" = the current directory
  // seed_everything(seed) before anything else runs.
  std::optional<uint64_t> seed;
};

}  // namespace fulgur
