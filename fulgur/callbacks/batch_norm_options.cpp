#include "fulgur/callbacks/batch_norm_options.h"

#include <torch/nn/modules/batchnorm.h>

namespace fulgur {

torch::nn::BatchNormOptions* batch_norm_options(torch::nn::Module& module) {
  if (auto* bn = dynamic_cast<torch::nn::BatchNorm1dImpl*>(&module)) return &bn->options;
  if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(&module)) return &bn->options;
  if (auto* bn = dynamic_cast<torch::nn::BatchNorm3dImpl*>(&module)) return &bn->options;
  return nullptr;
}

}  // namespace fulgur
