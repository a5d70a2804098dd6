#pragma once
// ModelPruning (Lightning's): prunes parameters with torch.nn.utils.prune's rules at the end of
// training epochs ("l1_unstructured", "random_unstructured", "ln_structured",
// "random_structured"; see pruning/pruning_methods.h), by default globally over every weight
// and bias of the model, then resets the surviving weights to their values at setup (the
// lottery ticket hypothesis).
//
// PyTorch keeps a pruned parameter as `weight_orig` times a `weight_mask` buffer, recomputed by
// a forward pre-hook. LibTorch modules have no such hooks, so here the parameter itself holds
// the product: pruned entries are zeroed when pruned and again after every training batch, and
// a gradient hook zeroes their gradients (so gradient clipping sees PyTorch's norms). The
// weights train exactly as under PyTorch's reparametrisation, and the state dict keeps its
// plain names, which is what Lightning's `make_pruning_permanent` saves in checkpoints. The
// masks stay with the callback (`mask(name)`); make_pruning_permanent (the default) drops them
// when training ends, after which the zeros are ordinary weights.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/pruning/pruning_methods.h"

namespace fulgur {

// Lightning's `amount`: an int (a count), a double (a fraction), or a function of the epoch
// returning either.
class PruningAmount {
 public:
  PruningAmount(int count) : fixed_(int64_t{count}) {}
  PruningAmount(int64_t count) : fixed_(count) {}
  PruningAmount(double fraction) : fixed_(fraction) {}
  template <typename F>
  requires std::is_invocable_r_v<pruning::Amount, F, int64_t> PruningAmount(F per_epoch)
      : per_epoch_(std::move(per_epoch)) {}
  pruning::Amount at(int64_t epoch) const { return per_epoch_ ? per_epoch_(epoch) : fixed_; }
  bool per_epoch() const { return static_cast<bool>(per_epoch_); }
  const pruning::Amount& fixed() const { return fixed_; }

 private:
  pruning::Amount fixed_ = 0.0;
  std::function<pruning::Amount(int64_t)> per_epoch_;
};

// `true`, `false`, or a function of the epoch (Lightning's Union[bool, Callable[[int], bool]]).
class EpochSwitch {
 public:
  EpochSwitch(bool on) : on_(on) {}
  template <typename F>
  requires std::is_invocable_r_v<bool, F, int64_t> EpochSwitch(F per_epoch)
      : per_epoch_(std::move(per_epoch)) {}
  bool at(int64_t epoch) const { return per_epoch_ ? per_epoch_(epoch) : on_; }

 private:
  bool on_ = false;
  std::function<bool(int64_t)> per_epoch_;
};

struct ModelPruningOptions {
  // (module path as named_modules() gives it, parameter name); empty = every `parameter_names`
  // parameter of every module but the containers (the Module itself, Sequential, ModuleList,
  // ModuleDict): all weights, then all biases.
  std::vector<std::pair<std::string, std::string>> parameters_to_prune;
  std::vector<std::string> parameter_names;  // empty = {"weight", "bias"}
  bool use_global_unstructured = true;
  PruningAmount amount = 0.5;
  EpochSwitch apply_pruning = true;
  bool make_pruning_permanent = true;
  EpochSwitch use_lottery_ticket_hypothesis = true;
  std::optional<int64_t> pruning_dim;  // structured rules: required
  std::optional<double> pruning_norm;  // ln_structured: required (may be infinite)
  int verbose = 0;                     // 1: overall sparsity, 2: also per parameter
  // False: prune at the end of each validation epoch instead (not the sanity check's).
  bool prune_on_train_epoch_end = true;
};

class ModelPruning : public Callback {
 public:
  // Raises MisconfigurationError, with Lightning's texts, for an unknown rule, a missing
  // pruning_dim or pruning_norm, a structured rule with use_global_unstructured, a parameter
  // name other than weight and bias, a bad amount or verbose.
  ModelPruning(std::string pruning_fn, ModelPruningOptions options = {});
  std::string name() const override { return "ModelPruning"; }

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor& loss, Batch&,
                          int64_t batch_idx) override;
  void on_train_epoch_end(Trainer& trainer, Module& module) override;
  void on_validation_epoch_end(Trainer& trainer, Module& module) override;
  void on_train_end(Trainer& trainer, Module& module) override;

  // Prunes `amount` now, as at an epoch's end (after setup).
  void apply_pruning(const pruning::Amount& amount);
  // Resets the surviving weights to their values at setup.
  void apply_lottery_ticket_hypothesis();
  // Drops the masks and gradient hooks: the zeros stay, and may train again.
  void make_pruning_permanent();

  // The rule's name, lower-cased ("l1_unstructured").
  const std::string& pruning_fn() const { return pruning_fn_; }
  const ModelPruningOptions& options() const { return options_; }
  // "<module path>.<parameter>" of each pruned parameter, in pruning order (after setup).
  std::vector<std::string> parameter_names() const;
  // The parameter's mask (1 kept, 0 pruned); undefined when it has none.
  torch::Tensor mask(const std::string& name) const;

 private:
  struct Target {
    std::string label;  // "<module path>.<parameter>"
    torch::Tensor param;
    torch::Tensor mask;      // undefined until pruned
    torch::Tensor original;  // the value at setup, for the lottery ticket
    std::optional<unsigned> grad_hook;
  };
  void run_pruning(int64_t epoch);
  void print_sparsity(const std::vector<int64_t>& before, const pruning::Amount& amount) const;
  void reapply_masks();

  std::string pruning_fn_;
  std::string method_;  // the rule's name as Lightning logs it ("L1Unstructured", ...)
  bool structured_ = false;
  bool random_ = false;
  ModelPruningOptions options_;
  const Module* module_ = nullptr;
  std::vector<Target> targets_;
  bool print_ = true;  // rank 0 prints
};

}  // namespace fulgur
