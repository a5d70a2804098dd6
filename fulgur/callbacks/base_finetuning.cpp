#include "fulgur/callbacks/base_finetuning.h"

#include <fmt/format.h>
#include <torch/nn/modules/batchnorm.h>

#include <mutex>
#include <unordered_map>

#include "fulgur/callbacks/batch_norm_options.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

// LibTorch's batch norm passes its running statistics to batch_norm in training mode even
// without track_running_stats (PyTorch's passes None), so they would go on moving with
// `momentum`. A frozen batch norm gets momentum 0 (they stay as they are) and its own back when
// made trainable; this remembers it, per module, while the module lives.
class FrozenMomenta {
 public:
  static FrozenMomenta& instance() {
    static FrozenMomenta momenta;
    return momenta;
  }
  void freeze(const std::shared_ptr<torch::nn::Module>& module, torch::nn::BatchNormOptions& bn) {
    std::lock_guard lock(mutex_);
    if (find(module) == nullptr) saved_[module.get()] = {module, bn.momentum()};
    bn.momentum(0.0);
  }
  void unfreeze(const std::shared_ptr<torch::nn::Module>& module, torch::nn::BatchNormOptions& bn) {
    std::lock_guard lock(mutex_);
    if (const auto* saved = find(module)) {
      bn.momentum(saved->momentum);
      saved_.erase(module.get());
    }
  }

 private:
  struct Saved {
    std::weak_ptr<torch::nn::Module> owner;
    c10::optional<double> momentum;  // LibTorch's type for it
  };
  // The entry of this very module, not of a destroyed one that had its address.
  const Saved* find(const std::shared_ptr<torch::nn::Module>& module) {
    const auto it = saved_.find(module.get());
    if (it == saved_.end()) return nullptr;
    if (it->second.owner.lock() != module) {
      saved_.erase(it);
      return nullptr;
    }
    return &it->second;
  }
  std::mutex mutex_;
  std::unordered_map<const torch::nn::Module*, Saved> saved_;
};

bool holds(const torch::optim::Optimizer& optimizer, const torch::Tensor& param) {
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      if (p.is_same(param)) return true;
    }
  }
  return false;
}

[[noreturn]] void bad_state(const std::string& what) {
  throw CheckpointError(
      fmt::format("the finetuning callback's saved internal_optimizer_metadata {}", what));
}

}  // namespace

BaseFinetuning::Modules BaseFinetuning::flatten_modules(const Modules& modules) {
  Modules flat;
  for (const auto& root : modules) {
    for (const auto& m : root->modules(/*include_self=*/true)) {
      if (m->children().empty() || !m->named_parameters(/*recurse=*/false).is_empty()) {
        flat.push_back(m);
      }
    }
  }
  return flat;
}

std::vector<torch::Tensor> BaseFinetuning::filter_params(const Modules& modules, bool train_bn,
                                                         bool requires_grad) {
  std::vector<torch::Tensor> params;
  for (const auto& m : flatten_modules(modules)) {
    if (batch_norm_options(*m) && !train_bn) continue;
    for (const auto& p : m->parameters(/*recurse=*/false)) {
      if (p.requires_grad() == requires_grad) params.push_back(p);
    }
  }
  return params;
}

void BaseFinetuning::make_trainable(const Modules& modules) {
  for (const auto& m : flatten_modules(modules)) {
    if (auto* bn = batch_norm_options(*m)) {
      bn->track_running_stats(true);
      FrozenMomenta::instance().unfreeze(m, *bn);
    }
    for (auto& p : m->parameters(/*recurse=*/false)) p.requires_grad_(true);
  }
}

void BaseFinetuning::freeze_module(const std::shared_ptr<torch::nn::Module>& module) {
  if (auto* bn = batch_norm_options(*module)) {
    bn->track_running_stats(false);
    FrozenMomenta::instance().freeze(module, *bn);
  }
  for (auto& p : module->parameters(/*recurse=*/false)) p.requires_grad_(false);
}

void BaseFinetuning::freeze(const Modules& modules, bool train_bn) {
  for (const auto& m : flatten_modules(modules)) {
    if (train_bn && batch_norm_options(*m)) {
      make_trainable({m});
    } else {
      freeze_module(m);
    }
  }
}

std::vector<torch::Tensor> BaseFinetuning::filter_on_optimizer(
    const torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& params) {
  // By identity: Lightning compares values (torch.equal), which also skips a new parameter that
  // merely equals one in the optimizer (two zero-initialised biases).
  std::vector<torch::Tensor> kept;
  size_t skipped = 0;
  for (const auto& p : params) {
    if (holds(optimizer, p)) {
      ++skipped;
    } else {
      kept.push_back(p);
    }
  }
  if (skipped > 0) {
    warn(fmt::format(
        "The provided params to be frozen already exist within another group of this "
        "optimizer. Those parameters will be skipped ({} of {}).\nHINT: give the optimizer in "
        "`configure_optimizers` only the parameters that require grad at that point.",
        skipped, params.size()));
  }
  return kept;
}

void BaseFinetuning::unfreeze_and_add_param_group(const Modules& modules,
                                                  torch::optim::Optimizer& optimizer,
                                                  std::optional<double> lr, double initial_denom_lr,
                                                  bool train_bn) {
  make_trainable(modules);
  const double params_lr = lr ? *lr : optimizer.param_groups().at(0).options().get_lr();
  const double denom_lr = lr ? 1.0 : initial_denom_lr;
  auto params = filter_on_optimizer(optimizer, filter_params(modules, train_bn, true));
  if (params.empty()) return;
  torch::optim::OptimizerParamGroup group(std::move(params), optimizer.defaults().clone());
  group.options().set_lr(params_lr / denom_lr);
  optimizer.add_param_group(group);
}

void BaseFinetuning::setup(Trainer& trainer, Module& module, const std::string& /*stage*/) {
  if (trainer.world_size() > 1) {
    throw MisconfigurationError(fmt::format(
        "{} runs in one process only: DDP synchronises the gradients of the parameters that "
        "require grad when it is set up, so the parameters unfrozen later would drift apart "
        "across the {} processes",
        name(), trainer.world_size()));
  }
  freeze_before_training(module);
}

void BaseFinetuning::on_fit_start(Trainer& trainer, Module& module) {
  if (!restarting_) return;
  restore_param_groups(trainer, module);
  restarting_ = false;
}

void BaseFinetuning::restore_param_groups(Trainer& trainer, Module& module) const {
  const auto named = module.named_parameters();
  const auto& optimizers = trainer.optimizers();
  for (const auto& [index, groups] : optimizer_metadata_) {
    if (index < 0 || static_cast<size_t>(index) >= optimizers.size()) continue;
    torch::optim::Optimizer& optimizer = optimizers[index]->optimizer();
    for (size_t g = 0; g < groups.size(); ++g) {
      std::vector<torch::Tensor> params;
      for (const auto& param_name : groups[g].params) {
        const torch::Tensor* p = named.find(param_name);
        if (p == nullptr) {
          throw CheckpointError(fmt::format(
              "{}: the checkpoint puts parameter \"{}\" in param group {} of optimizer {}, but "
              "the module has no parameter of that name",
              name(), param_name, g, index));
        }
        params.push_back(*p);
      }
      if (g < optimizer.param_groups().size()) {
        optimizer.param_groups()[g].params() = std::move(params);
      } else {
        torch::optim::OptimizerParamGroup group(std::move(params), optimizer.defaults().clone());
        group.options().set_lr(groups[g].lr);
        optimizer.add_param_group(group);
      }
    }
  }
}

void BaseFinetuning::on_train_epoch_start(Trainer& trainer, Module& module) {
  const auto& optimizers = trainer.optimizers();
  for (size_t i = 0; i < optimizers.size(); ++i) {
    torch::optim::Optimizer& optimizer = optimizers[i]->optimizer();
    const size_t groups_before = optimizer.param_groups().size();
    finetune_function(module, trainer.current_epoch(), optimizer);
    store(module, i, groups_before, optimizer);
  }
}

void BaseFinetuning::store(Module& module, size_t optimizer_index, size_t groups_before,
                           const torch::optim::Optimizer& optimizer) {
  const auto& groups = optimizer.param_groups();
  const auto index = static_cast<int64_t>(optimizer_index);
  const bool known = optimizer_metadata_.contains(index);
  if (known && groups_before == groups.size()) return;
  std::unordered_map<const void*, std::string> names;
  for (const auto& item : module.named_parameters()) {
    names.emplace(item.value().unsafeGetTensorImpl(), item.key());
  }
  auto& saved = optimizer_metadata_[index];
  for (size_t g = known ? groups_before : 0; g < groups.size(); ++g) {
    SavedGroup group{{}, groups[g].options().get_lr()};
    for (const auto& p : groups[g].params()) {
      const auto it = names.find(p.unsafeGetTensorImpl());
      if (it == names.end()) {
        throw MisconfigurationError(fmt::format(
            "{}: param group {} of optimizer {} holds a tensor that is not a parameter of the "
            "module, so it cannot be saved by name",
            name(), g, optimizer_index));
      }
      group.params.push_back(it->second);
    }
    saved.push_back(std::move(group));
  }
}

c10::impl::GenericDict BaseFinetuning::base_state_dict() const {
  c10::impl::GenericDict metadata(c10::IntType::get(), c10::AnyType::get());
  for (const auto& [index, groups] : optimizer_metadata_) {
    c10::impl::GenericList saved(c10::AnyType::get());
    for (const auto& group : groups) {
      auto entry = make_checkpoint_dict();
      c10::List<std::string> params;
      for (const auto& p : group.params) params.push_back(p);
      entry.insert("params", params);
      entry.insert("lr", group.lr);
      saved.push_back(entry);
    }
    metadata.insert(index, saved);
  }
  auto state = make_checkpoint_dict();
  state.insert("internal_optimizer_metadata", metadata);
  return state;
}

c10::IValue BaseFinetuning::state_dict() { return base_state_dict(); }

void BaseFinetuning::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) bad_state(fmt::format("is a {}, not a dict", state.tagKind()));
  auto dict = state.toGenericDict();
  // Lightning before 1.6 saved the metadata itself, without the key.
  const c10::IValue metadata =
      dict.contains("internal_optimizer_metadata") ? dict.at("internal_optimizer_metadata") : state;
  if (!metadata.isGenericDict()) bad_state("is not a dict");
  std::map<int64_t, std::vector<SavedGroup>> loaded;
  for (const auto& entry : metadata.toGenericDict()) {
    if (!entry.key().isInt()) continue;  // in the old layout, a subclass's own keys beside them
    if (!entry.value().isList()) bad_state("holds an optimizer entry that is not a list");
    auto& groups = loaded[entry.key().toInt()];
    for (const auto& g : entry.value().toListRef()) {
      if (!g.isGenericDict()) bad_state("holds a param group that is not a dict");
      const auto group = g.toGenericDict();
      if (!group.contains("params") || !group.at("params").isList()) {
        bad_state("holds a param group without a \"params\" list");
      }
      SavedGroup saved;
      for (const auto& p : group.at("params").toListRef()) {
        if (!p.isString()) bad_state("names a parameter with something that is not a string");
        saved.params.push_back(p.toStringRef());
      }
      if (group.contains("lr") && (group.at("lr").isDouble() || group.at("lr").isInt())) {
        saved.lr = group.at("lr").isDouble() ? group.at("lr").toDouble()
                                             : static_cast<double>(group.at("lr").toInt());
      }
      groups.push_back(std::move(saved));
    }
  }
  optimizer_metadata_ = std::move(loaded);
  restarting_ = true;
}

}  // namespace fulgur
