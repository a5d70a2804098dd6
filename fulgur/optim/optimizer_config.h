#pragma once
// What `Module::configure_optimizers` returns: one or more optimizers and, optionally, their
// schedulers with Lightning's scheduler config (interval, frequency, monitor, strict, name).
#include <memory>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

struct SchedulerConfig {
  std::shared_ptr<LRScheduler> scheduler;
  std::string interval = "epoch";  // "epoch" or "step"
  int64_t frequency = 1;
  std::string monitor;             // required by schedulers that need a metric
  bool strict = true;              // a missing monitored metric is an error (else skipped)
  std::string name;                // for LearningRateMonitor
};

struct OptimizerConfig {
  OptimizerConfig() = default;
  // A single optimizer: `return std::make_shared<torch::optim::Adam>(parameters(), 1e-3);`
  template <typename O>
  OptimizerConfig(std::shared_ptr<O> optimizer) : optimizers{std::move(optimizer)} {}
  OptimizerConfig(std::vector<std::shared_ptr<torch::optim::Optimizer>> optimizers_,
                  std::vector<SchedulerConfig> schedulers_ = {})
      : optimizers(std::move(optimizers_)), schedulers(std::move(schedulers_)) {}

  std::vector<std::shared_ptr<torch::optim::Optimizer>> optimizers;
  std::vector<SchedulerConfig> schedulers;
};

// The scheduler configs the Trainer runs, checked as Lightning does: under automatic
// optimization interval, frequency and a monitor for schedulers that need a metric; under manual
// optimization (the Module steps its schedulers) monitor and strict are dropped with a warning.
// Every scheduler must belong to one of `config.optimizers`. Raises MisconfigurationError.
std::vector<SchedulerConfig> checked_scheduler_configs(const OptimizerConfig& config,
                                                       bool automatic_optimization);

}  // namespace fulgur
