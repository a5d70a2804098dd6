#pragma once
// Lets a DataLoader read any LibTorch dataset (`torch::data::datasets::Dataset<D, Example<>>`,
// e.g. `torch::data::datasets::MNIST`, or one whose examples have no target, `TensorExample`):
// samples are fetched one by one and stacked. Targets that are undefined in every sample stay
// undefined in the batch. The wrapped dataset's get() must be safe to call from several threads.
#include <torch/data/datasets/base.h>

#include <concepts>
#include <type_traits>

#include "fulgur/data/dataset.h"
#include "fulgur/errors.h"

namespace fulgur {

template <typename TorchDataset>
class TorchDatasetAdapter : public Dataset {
  using TorchExample = typename TorchDataset::ExampleType;
  static_assert(std::is_same_v<decltype(TorchExample::data), torch::Tensor>,
                "TorchDatasetAdapter reads datasets whose examples hold a torch::Tensor as data");
  // Example<Tensor, NoTarget> (LibTorch's TensorExample) has no target member at all.
  static constexpr bool kHasTarget = requires(TorchExample example) {
    { example.target } -> std::convertible_to<torch::Tensor>;
  };

 public:
  explicit TorchDatasetAdapter(TorchDataset dataset) : dataset_(std::move(dataset)) {
    auto size = dataset_.size();
    if (!size.has_value()) {
      throw DataError(
          "TorchDatasetAdapter: the dataset has no known size; a DataLoader needs "
          "size() to return a value (stream datasets are not supported)");
    }
    size_ = static_cast<int64_t>(*size);
  }
  int64_t size() const override { return size_; }
  Batch get_batch(const std::vector<int64_t>& indices) const override {
    if (indices.empty()) return {};
    std::vector<torch::Tensor> data, targets;
    data.reserve(indices.size());
    if constexpr (kHasTarget) targets.reserve(indices.size());
    bool any_target = false;
    for (int64_t i : indices) {
      if (i < 0 || i >= size_) {
        throw DataError("TorchDatasetAdapter: sample index " + std::to_string(i) +
                        " is out of range [0, " + std::to_string(size_) + ")");
      }
      auto example = dataset_.get(static_cast<size_t>(i));
      data.push_back(std::move(example.data));
      if constexpr (kHasTarget) {
        any_target = any_target || example.target.defined();
        targets.push_back(std::move(example.target));
      }
    }
    Batch batch{torch::stack(data), torch::Tensor()};
    if (any_target) batch.target = torch::stack(targets);
    return batch;
  }

 private:
  // LibTorch's get() is not const, yet reading a sample does not change the dataset.
  mutable TorchDataset dataset_;
  int64_t size_ = 0;
};

// Wraps a LibTorch dataset for a DataLoader: `DataLoader(from_torch_dataset(MNIST(root)), {...})`.
template <typename TorchDataset>
std::shared_ptr<const Dataset> from_torch_dataset(TorchDataset dataset) {
  return std::make_shared<TorchDatasetAdapter<TorchDataset>>(std::move(dataset));
}

}  // namespace fulgur
