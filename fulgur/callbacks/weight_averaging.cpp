#include "fulgur/callbacks/weight_averaging.h"

#include <fmt/format.h>

#include <iostream>

#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

[[noreturn]] void state_error(const std::string& what) {
  throw CheckpointError(fmt::format("the state of WeightAveraging {}", what));
}

}  // namespace

WeightAveraging::WeightAveraging(WeightAveragingOptions options) : options_(std::move(options)) {
  if (!options_.avg_fn) options_.avg_fn = swa_avg_fn();
}

bool WeightAveraging::should_update(std::optional<int64_t> step_idx, std::optional<int64_t>) const {
  return step_idx.has_value();
}

void WeightAveraging::setup(Trainer&, Module&, const std::string& stage) {
  if (stage != "fit") return;
  fitting_ = true;
  average_.clear();
  n_averaged_ = 0;
}

void WeightAveraging::teardown(Trainer&, Module&, const std::string& stage) {
  if (stage == "fit") fitting_ = false;
}

void WeightAveraging::ensure_average(Module& module) {
  if (!fitting_ || !average_.empty()) return;
  // Lightning's AveragedModel(deepcopy(pl_module)): the parameters, then the buffers.
  torch::NoGradGuard no_grad;
  const torch::Device device = options_.device.value_or(module.device());
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    average_.emplace_back(p.key(), p.value().detach().to(device, /*non_blocking=*/false,
                                                         /*copy=*/true));
  }
  parameter_count_ = average_.size();
  for (const auto& b : module.named_buffers(/*recurse=*/true)) {
    average_.emplace_back(b.key(), b.value().detach().to(device, false, true));
  }
  count_ = torch::tensor(n_averaged_, torch::dtype(torch::kLong).device(device));
}

void WeightAveraging::on_fit_start(Trainer&, Module& module) { ensure_average(module); }

std::vector<torch::Tensor> WeightAveraging::weights_of(Module& module) const {
  std::vector<torch::Tensor> weights = module.parameters(/*recurse=*/true);
  const size_t parameters = weights.size();
  for (const auto& b : module.buffers(/*recurse=*/true)) weights.push_back(b);
  bool same = parameters == parameter_count_ && weights.size() == average_.size();
  for (size_t i = 0; same && i < weights.size(); ++i) {
    same = weights[i].sizes() == average_[i].second.sizes();
  }
  if (!same) {
    throw MisconfigurationError(fmt::format(
        "{}: the Module's parameters and buffers changed since fit started ({} and {} then, {} and "
        "{} now); the average can only follow the weights it was made of",
        name(), parameter_count_, average_.size() - parameter_count_, parameters,
        weights.size() - parameters));
  }
  return weights;
}

void WeightAveraging::update_average(Module& module) {
  torch::NoGradGuard no_grad;
  const auto weights = weights_of(module);
  const size_t averaged = options_.use_buffers ? weights.size() : parameter_count_;
  for (size_t i = 0; i < weights.size(); ++i) {
    torch::Tensor& average = average_[i].second;
    const torch::Tensor current = weights[i].detach().to(average.device());
    if (n_averaged_ == 0 || i >= averaged) {
      average.copy_(current);
    } else {
      // copy_ keeps the average's dtype: an integer buffer takes the result rounded toward 0.
      average.copy_(options_.avg_fn(average, current, count_));
    }
  }
  ++n_averaged_;
  count_ += 1;
}

void WeightAveraging::swap_weights(Module& module) {
  torch::NoGradGuard no_grad;
  const auto weights = weights_of(module);
  for (size_t i = 0; i < weights.size(); ++i) {
    torch::Tensor& average = average_[i].second;
    const torch::Tensor current = weights[i].detach().clone();
    weights[i].detach().copy_(average);
    average.copy_(current);
  }
}

void WeightAveraging::on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor&,
                                         Batch&, int64_t) {
  // global_step counts the optimizer steps taken: an update at most once per step, also when
  // gradients accumulate over several batches.
  const int64_t step = trainer.global_step();
  if (step > latest_update_step_ && should_update(step - 1, std::nullopt)) {
    update_average(module);
    latest_update_step_ = step;
  }
}

void WeightAveraging::on_train_epoch_end(Trainer& trainer, Module& module) {
  const int64_t epoch = trainer.current_epoch();
  if (epoch > latest_update_epoch_ && should_update(std::nullopt, epoch)) {
    update_average(module);
    latest_update_epoch_ = epoch;
  }
}

void WeightAveraging::on_train_end(Trainer&, Module& module) {
  if (average_.empty()) return;
  torch::NoGradGuard no_grad;
  const auto weights = weights_of(module);
  for (size_t i = 0; i < weights.size(); ++i) weights[i].detach().copy_(average_[i].second);
}

void WeightAveraging::on_validation_epoch_start(Trainer&, Module& module) {
  if (!average_.empty()) swap_weights(module);
}

void WeightAveraging::on_validation_epoch_end(Trainer&, Module& module) {
  if (!average_.empty()) swap_weights(module);
}

c10::IValue WeightAveraging::state_dict() {
  auto state = make_checkpoint_dict();
  state.insert("latest_update_step", latest_update_step_);
  return state;
}

void WeightAveraging::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) state_error("is not a dict");
  const auto dict = state.toGenericDict();
  if (!dict.contains("latest_update_step") || !dict.at("latest_update_step").isInt()) {
    state_error("has no int \"latest_update_step\"");
  }
  latest_update_step_ = dict.at("latest_update_step").toInt();
}

void WeightAveraging::on_save_checkpoint(Trainer& trainer, Module&, CheckpointDict& checkpoint) {
  if (average_.empty()) {
    if (trainer.is_global_zero()) {
      std::cout << "You're using the WeightAveraging callback, but saving a checkpoint outside "
                   "the 'fit' stage. The state of the WeightAveraging callback won't be saved in "
                   "the checkpoint. If training has finished, the average model parameters will "
                   "be saved to the state_dict in the checkpoint.\n";
    }
    return;
  }
  auto average = make_checkpoint_dict();
  for (const auto& [key, tensor] : average_) average.insert(key, tensor);
  auto averaging_state = make_checkpoint_dict();
  averaging_state.insert("n_averaged", count_.clone());
  checkpoint.insert_or_assign("current_model_state", checkpoint.at("state_dict"));
  checkpoint.insert_or_assign("state_dict", average);
  checkpoint.insert_or_assign("averaging_state", averaging_state);
}

void WeightAveraging::on_load_checkpoint(Trainer& trainer, Module& module,
                                         const CheckpointDict& checkpoint) {
  if (!fitting_) {
    warn(
        "You're using the WeightAveraging callback, but loading a checkpoint outside the 'fit' "
        "stage. The WeightAveraging state cannot be restored. If you're using the checkpoint for "
        "prediction or testing, you can ignore this warning. To disable the warning, remove the "
        "WeightAveraging callback.");
    return;
  }
  // The Module holds the checkpoint's "state_dict" by now: the average, or (without the
  // callback's keys) the only weights there are.
  average_.clear();
  ensure_average(module);
  if (!checkpoint.contains("current_model_state") || !checkpoint.contains("averaging_state")) {
    warn(
        "The checkpoint was not created with WeightAveraging. Both the current and the average "
        "model will be initialized with state_dict.");
    return;
  }
  const c10::IValue current = checkpoint.at("current_model_state");
  const c10::IValue averaging = checkpoint.at("averaging_state");
  if (!current.isGenericDict()) state_error("has no dict \"current_model_state\"");
  if (!averaging.isGenericDict() || !averaging.toGenericDict().contains("n_averaged") ||
      !averaging.toGenericDict().at("n_averaged").isTensor()) {
    state_error("has no tensor \"n_averaged\" in \"averaging_state\"");
  }
  const auto current_state = current.toGenericDict();
  CheckpointConnector::check_module_state_dict(module, current_state, module.strict_loading(),
                                               "the checkpoint's current_model_state");
  if (trainer.is_global_zero()) {
    std::cout << "Found current_model_state in the checkpoint. This will be used to initialize "
                 "the model.\n";
  }
  n_averaged_ = averaging.toGenericDict().at("n_averaged").toTensor().item<int64_t>();
  count_.fill_(n_averaged_);
  CheckpointConnector::load_module_state_dict(module, current_state, module.strict_loading(),
                                              "the checkpoint's current_model_state");
}

}  // namespace fulgur
