#pragma once
// A LibTorch optimizer's state in torch.optim's state_dict layout, so that a checkpoint's
// `optimizer_states` load into Python's torch.optim (and back into fulgur):
//   {"state": {i: {"exp_avg": ..., ...}}, "param_groups": [{"lr": ..., ..., "params": [i, ...]}]}
// where i numbers the parameters of all groups in order. SGD, Adam, AdamW, Adagrad and RMSprop
// are described with torch.optim's hyperparameter and state names (Adam's `step` as a float
// tensor, as Python keeps it).
#include <string>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

namespace torch::optim {
class Optimizer;
}

namespace fulgur {

// Raises CheckpointError for an optimizer kind without a torch.optim counterpart here.
c10::impl::GenericDict optimizer_state_dict(const torch::optim::Optimizer& optimizer);

// Raises CheckpointError naming `source` when `state` does not fit `optimizer`: another kind of
// optimizer, another number of param groups or parameters, tensors of other shapes. Changes
// nothing.
void check_optimizer_state_dict(const torch::optim::Optimizer& optimizer, const c10::IValue& state,
                                const std::string& source);

// Checks as above, then replaces every group's hyperparameters and every parameter's state
// (tensors moved to the parameter's device and dtype; Adam's `step` stays an integer).
void load_optimizer_state_dict(torch::optim::Optimizer& optimizer, const c10::IValue& state,
                               const std::string& source);

}  // namespace fulgur
