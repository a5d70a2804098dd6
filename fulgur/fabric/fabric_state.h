#pragma once
// FabricState: what Fabric::save writes and Fabric::load restores, by name — modules (their
// weights), optimizers (their state, in torch.optim's layout) and plain values (counters,
// settings). The checkpoint is a dict with these names as keys, as Lightning Fabric writes it.
// The modules and optimizers are referred to, not owned: they must outlive the call.
#include <map>
#include <string>

#include <ATen/core/ivalue.h>

namespace torch::nn {
class Module;
}  // namespace torch::nn
namespace torch::optim {
class Optimizer;
}  // namespace torch::optim

namespace fulgur {

struct FabricState {
  std::map<std::string, torch::nn::Module*> modules;
  std::map<std::string, torch::optim::Optimizer*> optimizers;
  std::map<std::string, c10::IValue> values;  // load replaces them with the saved ones
};

}  // namespace fulgur
