#include "fulgur/tuner/lr_find.h"

#include <cmath>
#include <iostream>
#include <limits>

#include <fmt/format.h>

#include "fulgur/callbacks/callback.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/optim/optimizer_config.h"
#include "fulgur/rng_states.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/hparam_access.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

// Lightning's _LRCallback together with the rate schedule: sets each optimizer step's rate
// before its batch and records the smoothed loss after it.
class RangeTestRecorder : public Callback {
 public:
  RangeTestRecorder(LRFinder& finder, std::optional<double> early_stop_threshold)
      : finder_(finder), early_stop_threshold_(early_stop_threshold) {}
  std::string name() const override { return "LRFinderRecorder"; }
  int64_t steps() const { return steps_; }

  void on_fit_start(Trainer& trainer, Module&) override {
    const auto& optimizers = trainer.optimizers();
    if (optimizers.size() != 1) {
      throw MisconfigurationError(fmt::format(
          "configure_optimizers() returned {} optimizers, but the learning rate finder only "
          "works with a single optimizer",
          optimizers.size()));
    }
    // The finder's schedule replaces the Module's schedulers for the search.
    trainer.lr_scheduler_configs().clear();
    set_lr(trainer, finder_.lr_at(0));
  }

  void on_train_batch_start(Trainer& trainer, Module&, Batch&, int64_t batch_idx) override {
    if (!steps_here(trainer, batch_idx)) return;
    lr_ = finder_.lr_at(trainer.global_step());
    set_lr(trainer, lr_);
  }

  void on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor& loss, Batch&,
                          int64_t batch_idx) override {
    if (!steps_here(trainer, batch_idx)) return;
    ++steps_;
    if (!loss.defined()) {  // a step without a loss: left out of the suggestion
      finder_.record(lr_, std::numeric_limits<double>::quiet_NaN());
      return;
    }
    const double current = loss.detach().to(torch::kCPU, torch::kDouble).item<double>();
    const int64_t step = trainer.global_step();
    // Lightning's smoothing, including its bias correction by the global step.
    avg_loss_ = kBeta * avg_loss_ + (1 - kBeta) * current;
    const double smoothed = avg_loss_ / (1 - std::pow(kBeta, static_cast<double>(step + 1)));
    if (early_stop_threshold_ && step > 1 && smoothed > *early_stop_threshold_ * best_loss_) {
      trainer.set_should_stop(true);
    }
    if (smoothed < best_loss_ || step == 1) best_loss_ = smoothed;
    finder_.record(lr_, smoothed);
  }

 private:
  static constexpr double kBeta = 0.98;

  // Rates change and losses count at the batches that step the optimizer.
  static bool steps_here(const Trainer& trainer, int64_t batch_idx) {
    return (batch_idx + 1) % trainer.accumulate_grad_batches() == 0;
  }
  static void set_lr(Trainer& trainer, double lr) {
    for (auto& group : trainer.optimizers().front()->param_groups()) group.options().set_lr(lr);
  }

  LRFinder& finder_;
  std::optional<double> early_stop_threshold_;
  double lr_ = 0;
  double avg_loss_ = 0;
  double best_loss_ = 0;
  int64_t steps_ = 0;
};

// Lightning's _determine_lr_attr_name, over the Module's hparams.
std::string lr_attr_name(const Module& module, const std::string& attr_name) {
  if (!attr_name.empty()) {
    if (module.hparams().contains(attr_name)) return attr_name;
    throw ConfigError(fmt::format(
        "The attribute name for the learning rate was set to {}, but could not find this as a "
        "field in the Module's hparams",
        attr_name));
  }
  for (const char* name : {"lr", "learning_rate"}) {
    if (module.hparams().contains(name)) return name;
  }
  throw ConfigError(
      "When using the learning rate finder, the Module's hparams should have one of these "
      "fields: ['lr', 'learning_rate'] (save_hyperparameters({{\"lr\", 1e-3}}) and read it in "
      "configure_optimizers), or set update_attr=false");
}

}  // namespace

std::optional<LRFinder> lr_find(Trainer& trainer, Module& module, const TuningData& data,
                                const LRFinderOptions& options) {
  if (trainer.options().fast_dev_run.batches > 0) {
    warn("Skipping learning rate finder since `fast_dev_run` is enabled.");
    return std::nullopt;
  }
  check_tunable(trainer, "The learning rate finder");
  LRFinder finder(options);
  const std::string attr = options.update_attr ? lr_attr_name(module, options.attr_name) : "";

  auto recorder = std::make_shared<RangeTestRecorder>(finder, options.early_stop_threshold);
  TrainerOptions trial = trial_options(trainer.options(), {recorder});
  // As Lightning's __lr_finder_reset_params: the rest of the user's loop settings bound the
  // search too (max_epochs, limit_train_batches), and validation runs where the user's would.
  trial.max_steps = options.num_training;
  trial.limit_val_batches = options.num_training;
  {
    ModuleSnapshot snapshot(module);
    RngIsolation isolated_rng;
    try {
      fit_trial(trial, module, data);
    } catch (...) {
      snapshot.restore();
      throw;
    }
    snapshot.restore();
  }

  if (recorder->steps() < options.num_training) {
    std::cout << fmt::format("LR finder stopped early after {} steps due to diverging loss.\n",
                             recorder->steps());
  }
  if (options.update_attr) {
    if (const auto lr = finder.suggestion()) {
      set_hparam(module, nullptr, attr, *lr);
      std::cout << fmt::format("Learning rate set to {}\n", *lr);
    }
  }
  return finder;
}

}  // namespace fulgur
