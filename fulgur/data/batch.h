#pragma once
// A batch as the loops see it: inputs and (possibly undefined) targets, stacked along dim 0.
// It is LibTorch's own `Example`, so `batch.data` / `batch.target` read as in any LibTorch loop.
#include <torch/data/example.h>

namespace fulgur {

using Batch = torch::data::Example<torch::Tensor, torch::Tensor>;

// Number of samples in a batch (its leading dimension), 0 for an empty batch.
inline int64_t batch_size_of(const Batch& batch) {
  return batch.data.defined() && batch.data.dim() > 0 ? batch.data.size(0) : 0;
}

}  // namespace fulgur
