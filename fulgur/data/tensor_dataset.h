#pragma once
// An in-memory dataset of two tensors sharing their first dimension. Batches are sliced whole:
// one `index_select` per tensor, or a zero-copy `narrow` when the indices are consecutive.
#include "fulgur/data/dataset.h"

namespace fulgur {

class TensorDataset : public Dataset {
 public:
  // `targets` may be undefined (e.g. for prediction).
  TensorDataset(torch::Tensor data, torch::Tensor targets);
  int64_t size() const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;
  const torch::Tensor& data() const { return data_; }
  const torch::Tensor& targets() const { return targets_; }

 private:
  torch::Tensor data_;
  torch::Tensor targets_;
};

}  // namespace fulgur
