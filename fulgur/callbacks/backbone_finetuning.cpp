#include "fulgur/callbacks/backbone_finetuning.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace fulgur {

BackboneFinetuning::BackboneFinetuning(BackboneFinetuningOptions options)
    : options_(std::move(options)) {
  if (!options_.lambda_func) {
    throw ConfigError("BackboneFinetuning(lambda_func): give a function of the epoch");
  }
}

std::shared_ptr<torch::nn::Module> BackboneFinetuning::backbone(Module& module) const {
  for (const auto& child : module.named_children()) {
    if (child.key() == options_.backbone) return child.value();
  }
  throw MisconfigurationError(fmt::format(
      "BackboneFinetuning: the module {} has no submodule `{}`; register the part to finetune "
      "with register_module(\"{}\", ...)",
      module.module_name(), options_.backbone, options_.backbone));
}

void BackboneFinetuning::freeze_before_training(Module& module) { freeze({backbone(module)}); }

void BackboneFinetuning::on_fit_start(Trainer& trainer, Module& module) {
  const auto part = backbone(module);
  BaseFinetuning::on_fit_start(trainer, module);
  // A fit resumed after the unfreezing: `setup` froze the backbone again and no epoch start
  // will unfreeze it (Lightning leaves it frozen here).
  if (restarting_ && trainer.current_epoch() > options_.unfreeze_backbone_at_epoch) {
    make_trainable({part});
  }
  restarting_ = false;
}

void BackboneFinetuning::finetune_function(Module& module, int64_t epoch,
                                           torch::optim::Optimizer& optimizer) {
  const double current_lr = optimizer.param_groups().at(0).options().get_lr();
  if (epoch == options_.unfreeze_backbone_at_epoch) {
    const double initial_backbone_lr =
        options_.backbone_initial_lr.value_or(current_lr * options_.backbone_initial_ratio_lr);
    previous_backbone_lr_ = initial_backbone_lr;
    unfreeze_and_add_param_group({backbone(module)}, optimizer, initial_backbone_lr,
                                 options_.initial_denom_lr, options_.train_bn);
    report(current_lr, initial_backbone_lr);
  } else if (epoch > options_.unfreeze_backbone_at_epoch) {
    if (!previous_backbone_lr_) {
      throw MisconfigurationError(fmt::format(
          "BackboneFinetuning: epoch {} is past unfreeze_backbone_at_epoch={} but the backbone "
          "was never unfrozen (resumed from a checkpoint written without this callback?)",
          epoch, options_.unfreeze_backbone_at_epoch));
    }
    double next_lr = options_.lambda_func(epoch + 1) * *previous_backbone_lr_;
    if (options_.should_align && next_lr > current_lr) next_lr = current_lr;
    optimizer.param_groups().back().options().set_lr(next_lr);
    previous_backbone_lr_ = next_lr;
    report(current_lr, next_lr);
  }
}

void BackboneFinetuning::report(double current_lr, double backbone_lr) const {
  if (!options_.verbose) return;
  const double scale = std::pow(10.0, options_.rounding);
  auto rounded = [&](double lr) { return std::round(lr * scale) / scale; };
  std::cout << fmt::format("Current lr: {}, Backbone lr: {}\n", rounded(current_lr),
                           rounded(backbone_lr));
}

c10::IValue BackboneFinetuning::state_dict() {
  auto state = base_state_dict();
  state.insert("previous_backbone_lr",
               previous_backbone_lr_ ? c10::IValue(*previous_backbone_lr_) : c10::IValue());
  return state;
}

void BackboneFinetuning::load_state_dict(const c10::IValue& state) {
  BaseFinetuning::load_state_dict(state);
  const auto dict = state.toGenericDict();  // a dict: the base checked
  if (dict.contains("previous_backbone_lr")) {
    const c10::IValue lr = dict.at("previous_backbone_lr");
    if (lr.isDouble() || lr.isInt()) {
      previous_backbone_lr_ = lr.isDouble() ? lr.toDouble() : static_cast<double>(lr.toInt());
    } else if (lr.isNone()) {
      previous_backbone_lr_.reset();
    } else {
      throw CheckpointError(
          fmt::format("BackboneFinetuning: the saved previous_backbone_lr is a {}, not a number",
                      lr.tagKind()));
    }
  }
  restarting_ = true;
}

}  // namespace fulgur
