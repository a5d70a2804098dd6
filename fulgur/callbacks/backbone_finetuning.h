#pragma once
// BackboneFinetuning: Lightning's callback that trains a model's head first, with its backbone
// frozen, then unfreezes the backbone at `unfreeze_backbone_at_epoch` with a learning rate of
// its own (a fraction of the head's) that grows each epoch by `lambda_func` until it reaches
// the head's (when `should_align`).
//
// The backbone is the Module's submodule registered under `backbone` (Lightning: the attribute
// `pl_module.backbone`). configure_optimizers should give the optimizer only the parameters
// that require grad; the backbone's are added as a new param group when it is unfrozen.
#include <functional>
#include <optional>

#include "fulgur/callbacks/base_finetuning.h"

namespace fulgur {

struct BackboneFinetuningOptions {
  int64_t unfreeze_backbone_at_epoch = 10;
  // The factor by which the backbone's rate grows at the start of epoch `e` (given e + 1, as
  // Lightning's); Lightning's default `multiplicative` doubles it.
  std::function<double(int64_t)> lambda_func = [](int64_t) { return 2.0; };
  // The backbone starts at the first group's rate times this, unless backbone_initial_lr.
  double backbone_initial_ratio_lr = 10e-2;
  std::optional<double> backbone_initial_lr;
  // Once the backbone's rate would pass the first group's, it follows that rate instead.
  bool should_align = true;
  // Passed on as Lightning's does, where it has no effect: the backbone's rate is given.
  double initial_denom_lr = 10.0;
  // Whether the backbone's batch norms join its param group when it is unfrozen. While it is
  // frozen they keep training, whatever this says (Lightning freezes with train_bn on).
  bool train_bn = true;
  // Print the head's and the backbone's rates at each epoch's start from the unfreezing on.
  bool verbose = false;
  int rounding = 12;  // decimals printed
  std::string backbone = "backbone";
};

class BackboneFinetuning : public BaseFinetuning {
 public:
  explicit BackboneFinetuning(BackboneFinetuningOptions options = {});
  std::string name() const override { return "BackboneFinetuning"; }
  const BackboneFinetuningOptions& options() const { return options_; }
  std::optional<double> previous_backbone_lr() const { return previous_backbone_lr_; }

  void on_fit_start(Trainer& trainer, Module& module) override;
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

 protected:
  void freeze_before_training(Module& module) override;
  void finetune_function(Module& module, int64_t epoch,
                         torch::optim::Optimizer& optimizer) override;

 private:
  // Raises MisconfigurationError when the Module has no such submodule.
  std::shared_ptr<torch::nn::Module> backbone(Module& module) const;
  void report(double current_lr, double backbone_lr) const;

  BackboneFinetuningOptions options_;
  std::optional<double> previous_backbone_lr_;
  bool restarting_ = false;
};

}  // namespace fulgur
