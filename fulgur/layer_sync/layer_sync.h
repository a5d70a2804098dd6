#pragma once
// LayerSync (Lightning's plugin of that name): turns a model's layers into ones that
// synchronise across the processes of a parallel strategy, and back. The ParallelStrategy that
// owns it applies it when it sets the module up and reverts it at teardown.
#include <torch/nn/module.h>

namespace fulgur {

class Strategy;

class LayerSync {
 public:
  virtual ~LayerSync() = default;
  virtual void apply(torch::nn::Module& module, Strategy& strategy) = 0;
  virtual void revert() = 0;
};

}  // namespace fulgur
