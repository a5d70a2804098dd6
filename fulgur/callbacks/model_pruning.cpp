#include "fulgur/callbacks/model_pruning.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <algorithm>
#include <iostream>

#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

constexpr const char* kRules[] = {"ln_structured", "l1_unstructured", "random_structured",
                                  "random_unstructured"};

// Lightning's container classes, whose own parameters are never pruned by default.
bool is_container(const torch::nn::Module& layer) {
  return dynamic_cast<const Module*>(&layer) != nullptr ||
         dynamic_cast<const torch::nn::SequentialImpl*>(&layer) != nullptr ||
         dynamic_cast<const torch::nn::ModuleListImpl*>(&layer) != nullptr ||
         dynamic_cast<const torch::nn::ModuleDictImpl*>(&layer) != nullptr;
}

// The class name torch.nn.utils.prune gives a rule ("l1_unstructured" -> "L1Unstructured").
std::string class_name(const std::string& rule) {
  std::string out;
  bool upper = true;
  for (char c : rule) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

int64_t zeros_of(const torch::Tensor& mask) {
  return mask.defined() ? mask.eq(0).sum().item<int64_t>() : 0;
}

std::string percent(int64_t part, int64_t whole) {
  return fmt::format(
      "{:.2f}%", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace

ModelPruning::ModelPruning(std::string pruning_fn, ModelPruningOptions options)
    : options_(std::move(options)) {
  if (options_.parameter_names.empty()) options_.parameter_names = {"weight", "bias"};
  for (const auto& name : options_.parameter_names) {
    if (name != "weight" && name != "bias") {
      throw MisconfigurationError(
          fmt::format("The provided `parameter_names` name: {} isn't in ('weight', 'bias')", name));
    }
  }
  std::transform(pruning_fn.begin(), pruning_fn.end(), pruning_fn.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::find(std::begin(kRules), std::end(kRules), pruning_fn) == std::end(kRules)) {
    throw MisconfigurationError(fmt::format(
        "The provided `pruning_fn` {} isn't available in PyTorch's built-in functions: ['{}']",
        pruning_fn, fmt::join(kRules, "', '")));
  }
  pruning_fn_ = pruning_fn;
  structured_ = pruning_fn.ends_with("_structured");
  random_ = pruning_fn.starts_with("random_");
  if (structured_ && !options_.pruning_dim) {
    throw MisconfigurationError(
        "When requesting `structured` pruning, the `pruning_dim` should be provided.");
  }
  if (pruning_fn == "ln_structured" && !options_.pruning_norm) {
    throw MisconfigurationError(
        "When requesting `ln_structured` pruning, the `pruning_norm` should be provided.");
  }
  // Lightning logs the class under global pruning and the function otherwise.
  method_ = options_.use_global_unstructured ? class_name(pruning_fn) : pruning_fn;
  if (options_.use_global_unstructured && structured_) {
    throw MisconfigurationError(fmt::format(
        "Only the \"unstructured\" PRUNING_TYPE is supported with `use_global_unstructured=True`. "
        "Found method {} of type structured.",
        method_));
  }
  if (!options_.amount.per_epoch()) pruning::check_amount(options_.amount.fixed());
  if (options_.verbose < 0 || options_.verbose > 2) {
    throw MisconfigurationError("`verbose` must be any of (0, 1, 2)");
  }
}

void ModelPruning::setup(Trainer& trainer, Module& module, const std::string&) {
  print_ = trainer.is_global_zero();
  // A second stage on the same model keeps the masks (PyTorch's stay on the module).
  if (module_ != &module) {
    for (auto& target : targets_) {
      if (target.grad_hook) target.param.remove_hook(*target.grad_hook);
    }
    targets_.clear();
    std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> layers;
    for (const auto& item : module.named_modules("", /*include_self=*/false)) {
      layers.emplace_back(item.key(), item.value());
    }
    const auto add = [&](const std::string& path, torch::nn::Module& layer,
                         const std::string& name) {
      const auto* param = layer.named_parameters(/*recurse=*/false).find(name);
      if (param == nullptr || !param->defined()) return false;
      targets_.push_back({.label = path + "." + name, .param = *param});
      return true;
    };
    if (options_.parameters_to_prune.empty()) {
      for (const auto& name : options_.parameter_names) {
        for (const auto& [path, layer] : layers) {
          if (!is_container(*layer)) add(path, *layer, name);
        }
      }
    } else {
      std::vector<std::string> missing_modules, missing_parameters;
      for (const auto& [path, name] : options_.parameters_to_prune) {
        const auto found = std::find_if(layers.begin(), layers.end(),
                                        [&](const auto& layer) { return layer.first == path; });
        if (found == layers.end()) {
          missing_modules.push_back(path);
        } else if (!add(path, *found->second, name)) {
          missing_parameters.push_back(name);
        }
      }
      if (!missing_modules.empty() || !missing_parameters.empty()) {
        throw MisconfigurationError(fmt::format(
            "Some provided `parameters_to_prune` don't exist in the model. Found missing modules: "
            "[{}] and missing parameters: [{}]",
            fmt::join(missing_modules, ", "), fmt::join(missing_parameters, ", ")));
      }
    }
    module_ = &module;
  }
  if (structured_) {
    // torch.nn.utils.prune's checks, here before training rather than at the first pruning.
    for (const auto& target : targets_) {
      const int64_t dims = target.param.dim();
      if (dims < 2 || *options_.pruning_dim < -dims || *options_.pruning_dim >= dims) {
        throw MisconfigurationError(fmt::format(
            "{} cannot be pruned along pruning_dim={}: its shape is [{}], and structured pruning "
            "needs a multidimensional tensor with that dimension",
            target.label, *options_.pruning_dim, fmt::join(target.param.sizes(), ", ")));
      }
    }
  }
  torch::NoGradGuard no_grad;
  for (auto& target : targets_) target.original = target.param.detach().clone();
}

void ModelPruning::apply_pruning(const pruning::Amount& amount) {
  if (targets_.empty()) return;  // before setup, or a model without such parameters
  torch::NoGradGuard no_grad;
  std::vector<int64_t> before;
  for (const auto& target : targets_) before.push_back(zeros_of(target.mask));
  const auto mask_of = [](const Target& target) {
    return target.mask.defined() ? target.mask : torch::ones_like(target.param);
  };
  std::vector<torch::Tensor> masks;
  if (options_.use_global_unstructured) {
    // One ranking over every parameter's entries (global_unstructured).
    std::vector<torch::Tensor> scores, current;
    for (const auto& target : targets_) {
      scores.push_back(target.param.detach().flatten());
      current.push_back(mask_of(target).flatten());
    }
    auto all =
        pruning::prune_unstructured(torch::cat(scores), torch::cat(current), amount, random_);
    int64_t offset = 0;
    for (const auto& target : targets_) {
      masks.push_back(all.narrow(0, offset, target.param.numel()).view_as(target.param));
      offset += target.param.numel();
    }
  } else {
    for (const auto& target : targets_) {
      masks.push_back(
          structured_
              ? pruning::prune_structured(target.param, mask_of(target), amount,
                                          *options_.pruning_dim, options_.pruning_norm)
              : pruning::prune_unstructured(target.param, mask_of(target), amount, random_));
    }
  }
  for (size_t i = 0; i < targets_.size(); ++i) {
    Target& target = targets_[i];
    if (!target.mask.defined()) {
      target.mask = masks[i].clone();
      // Pruned entries get no gradient, as under PyTorch's weight_orig * weight_mask.
      target.grad_hook = target.param.register_hook(
          [mask = target.mask](const torch::Tensor& grad) { return grad * mask; });
    } else {
      target.mask.copy_(masks[i]);  // the hook holds the same tensor
    }
  }
  reapply_masks();
  if (options_.verbose > 0 && print_) print_sparsity(before, amount);
}

void ModelPruning::apply_lottery_ticket_hypothesis() {
  torch::NoGradGuard no_grad;
  for (auto& target : targets_) target.param.copy_(target.original);
  reapply_masks();
}

void ModelPruning::make_pruning_permanent() {
  for (auto& target : targets_) {
    if (target.grad_hook) target.param.remove_hook(*target.grad_hook);
    target.grad_hook.reset();
    target.mask = torch::Tensor();
  }
}

void ModelPruning::reapply_masks() {
  torch::NoGradGuard no_grad;
  for (auto& target : targets_) {
    if (target.mask.defined()) target.param.mul_(target.mask);
  }
}

void ModelPruning::run_pruning(int64_t epoch) {
  if (!options_.apply_pruning.at(epoch)) return;
  const pruning::Amount amount = options_.amount.at(epoch);
  if (std::visit([](auto value) { return value == 0; }, amount)) return;
  apply_pruning(amount);
  if (options_.use_lottery_ticket_hypothesis.at(epoch)) apply_lottery_ticket_hypothesis();
}

void ModelPruning::on_train_batch_end(Trainer&, Module&, const torch::Tensor&, Batch&, int64_t) {
  // The optimizer may have moved pruned entries (momentum, weight decay): zero them again.
  reapply_masks();
}

void ModelPruning::on_train_epoch_end(Trainer&, Module& module) {
  if (options_.prune_on_train_epoch_end) run_pruning(module.current_epoch());
}

void ModelPruning::on_validation_epoch_end(Trainer& trainer, Module& module) {
  if (!trainer.sanity_checking() && !options_.prune_on_train_epoch_end) {
    run_pruning(module.current_epoch());
  }
}

void ModelPruning::on_train_end(Trainer&, Module&) {
  if (options_.make_pruning_permanent) make_pruning_permanent();
}

void ModelPruning::print_sparsity(const std::vector<int64_t>& before,
                                  const pruning::Amount& amount) const {
  int64_t total = 0, zeros_before = 0, zeros_after = 0;
  for (size_t i = 0; i < targets_.size(); ++i) {
    total += targets_[i].param.numel();
    zeros_before += before[i];
    zeros_after += zeros_of(targets_[i].mask);
  }
  std::cout << fmt::format("Applied `{}`. Pruned: {}/{} ({}) -> {}/{} ({})\n", method_,
                           zeros_before, total, percent(zeros_before, total), zeros_after, total,
                           percent(zeros_after, total));
  if (options_.verbose < 2) return;
  for (size_t i = 0; i < targets_.size(); ++i) {
    const int64_t size = targets_[i].param.numel();
    const int64_t after = zeros_of(targets_[i].mask);
    std::cout << fmt::format("Applied `{}` to `{}` with amount={}. Pruned: {} ({}) -> {} ({})\n",
                             method_, targets_[i].label, pruning::to_string(amount), before[i],
                             percent(before[i], size), after, percent(after, size));
  }
}

std::vector<std::string> ModelPruning::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& target : targets_) names.push_back(target.label);
  return names;
}

torch::Tensor ModelPruning::mask(const std::string& name) const {
  for (const auto& target : targets_) {
    if (target.label == name) return target.mask;
  }
  return {};
}

}  // namespace fulgur
