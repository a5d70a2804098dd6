#pragma once
// Lightning's isinstance(module, _BatchNorm) for LibTorch: the options of a BatchNorm1d, 2d or
// 3d (their momentum is what the finetuning and weight-averaging callbacks change), or null for
// any other module.
#include <torch/nn/module.h>
#include <torch/nn/options/batchnorm.h>

namespace fulgur {

torch::nn::BatchNormOptions* batch_norm_options(torch::nn::Module& module);

}  // namespace fulgur
