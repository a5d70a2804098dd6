#pragma once
// LearningRateMonitor (Lightning's): writes each optimizer's learning rate (and optionally its
// momentum and weight decay) to the loggers while fitting, per param group, and makes them
// callback metrics. Names as Lightning's: the scheduler config's `name`, else
// "lr-<Optimizer class>"; a second optimizer of the same class gets "-1", a third "-2", ...;
// several param groups get "/pg1", "/pg2", ...; momentum and weight decay append "-momentum"
// and "-weight_decay". Rates of a step-interval scheduler are written at the start of a batch,
// every `log_every_n_steps`; of an epoch-interval one at the start of each epoch; optimizers
// without a scheduler at both. `logging_interval` "step" or "epoch" writes everything at that
// one moment.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct LearningRateMonitorOptions {
  std::optional<std::string> logging_interval;  // unset, "step" or "epoch"
  bool log_momentum = false;                    // SGD/RMSprop momentum, Adam's beta1
  bool log_weight_decay = false;
};

class LearningRateMonitor : public Callback {
 public:
  // Raises ConfigError for a logging_interval other than "step" or "epoch".
  explicit LearningRateMonitor(LearningRateMonitorOptions options = {});
  std::string name() const override { return "LearningRateMonitor"; }

  // Raises MisconfigurationError when the Trainer has no logger.
  void on_train_start(Trainer& trainer, Module& module) override;
  void on_train_batch_start(Trainer& trainer, Module& module, Batch& batch,
                            int64_t batch_idx) override;
  void on_train_epoch_start(Trainer& trainer, Module& module) override;

  // Every name this monitor writes, in order (known after on_train_start).
  std::vector<std::string> names() const;
  // Lightning's `lrs`: every learning rate written, per name, in order (reset at train start).
  const std::map<std::string, std::vector<double>>& lrs() const { return lrs_; }

 private:
  // One optimizer, written under `base` ("lr-SGD"), or "<base>/pgN" per group when it has several.
  // The names follow the groups it has at each write, as Lightning's: a group added during the
  // fit (unfreezing a backbone) turns "lr-SGD" into "lr-SGD/pg1" and "lr-SGD/pg2".
  struct Tracked {
    torch::optim::Optimizer* optimizer;
    std::string interval;  // the scheduler's "step" or "epoch"; "" for no scheduler
    std::string base;
    std::vector<std::string> names() const;
  };
  void write(Trainer& trainer, const std::string& moment);

  LearningRateMonitorOptions options_;
  std::vector<Tracked> tracked_;
  std::map<std::string, std::vector<double>> lrs_;
};

}  // namespace fulgur
