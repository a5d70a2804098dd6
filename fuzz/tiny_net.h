#pragma once
// The model of the checkpoint fuzz target and of its seeds: a Linear and a BatchNorm1d, so a
// state_dict holds parameters and buffers.
#include <torch/torch.h>

namespace fulgur::fuzz {

struct TinyNet : torch::nn::Module {
  TinyNet() {
    fc = register_module("fc", torch::nn::Linear(3, 2));
    bn = register_module("bn", torch::nn::BatchNorm1d(2));
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};

}  // namespace fulgur::fuzz
