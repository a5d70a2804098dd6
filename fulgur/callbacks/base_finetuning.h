#pragma once
// BaseFinetuning: Lightning's base for callbacks that train a model in stages, part of it
// frozen at first and unfrozen later. Subclasses say what to freeze before training
// (freeze_before_training, from `setup`) and what to unfreeze at each epoch's start
// (finetune_function), adding the unfrozen parameters to an optimizer as a new param group.
//
// The groups added are remembered by parameter name and saved in checkpoints
// (`internal_optimizer_metadata`, Lightning's layout), so a resumed fit rebuilds them in
// on_fit_start, before the optimizers' states are restored.
//
// One process only for now: DDP synchronises the gradients of the parameters that require
// grad when it is set up, so parameters unfrozen later would drift apart across ranks.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

class BaseFinetuning : public Callback {
 public:
  using Modules = std::vector<std::shared_ptr<torch::nn::Module>>;

  std::string name() const override { return "BaseFinetuning"; }

  // The modules' leaves and the modules that hold parameters themselves.
  static Modules flatten_modules(const Modules& modules);
  // Parameters of the modules whose requires_grad equals `requires_grad`; batch norms' only
  // when `train_bn`.
  static std::vector<torch::Tensor> filter_params(const Modules& modules, bool train_bn = true,
                                                  bool requires_grad = true);
  // requires_grad on; batch norms track running statistics again.
  static void make_trainable(const Modules& modules);
  // requires_grad off for the module's own parameters; a batch norm stops tracking running
  // statistics (it normalises with the batch's and leaves its running ones as they are).
  static void freeze_module(const std::shared_ptr<torch::nn::Module>& module);
  // Freezes every flattened module, except batch norms when `train_bn`, which stay trainable.
  static void freeze(const Modules& modules, bool train_bn = true);
  // `params` less those the optimizer already holds (with a warning naming them skipped).
  static std::vector<torch::Tensor> filter_on_optimizer(const torch::optim::Optimizer& optimizer,
                                                        const std::vector<torch::Tensor>& params);
  // Unfreezes the modules and adds their trainable parameters to `optimizer` as a new group
  // (its other settings the optimizer's defaults) with rate `lr`, or else the first group's
  // rate divided by `initial_denom_lr`.
  static void unfreeze_and_add_param_group(const Modules& modules,
                                           torch::optim::Optimizer& optimizer,
                                           std::optional<double> lr = std::nullopt,
                                           double initial_denom_lr = 10.0, bool train_bn = true);

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_fit_start(Trainer& trainer, Module& module) override;
  void on_train_epoch_start(Trainer& trainer, Module& module) override;
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

 protected:
  // Freeze what is to be trained later. Runs in `setup`, before configure_optimizers.
  virtual void freeze_before_training(Module& module) = 0;
  // At every training epoch's start, for every optimizer: unfreeze what is due.
  virtual void finetune_function(Module& module, int64_t epoch,
                                 torch::optim::Optimizer& optimizer) = 0;

  // The state of this class, for subclasses that save more beside it.
  c10::impl::GenericDict base_state_dict() const;

 private:
  // A param group as saved: its parameters' names in the Module and its rate.
  struct SavedGroup {
    std::vector<std::string> params;
    double lr = 0.0;
  };
  void store(Module& module, size_t optimizer_index, size_t groups_before,
             const torch::optim::Optimizer& optimizer);
  void restore_param_groups(Trainer& trainer, Module& module) const;

  // Per optimizer (by its index), every param group it had when a group was first added.
  std::map<int64_t, std::vector<SavedGroup>> optimizer_metadata_;
  bool restarting_ = false;
};

}  // namespace fulgur
