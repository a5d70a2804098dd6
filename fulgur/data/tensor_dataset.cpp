#include "fulgur/data/tensor_dataset.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

TensorDataset::TensorDataset(torch::Tensor data, torch::Tensor targets)
    : data_(std::move(data)), targets_(std::move(targets)) {
  if (!data_.defined()) {
    throw DataError(
        "TensorDataset: the data tensor is undefined; pass a tensor whose first "
        "dimension indexes the samples");
  }
  if (data_.dim() == 0) {
    throw DataError(
        "TensorDataset: the data tensor is a scalar; it needs a first dimension that "
        "indexes the samples (use unsqueeze(0) for a single sample)");
  }
  if (targets_.defined()) {
    if (targets_.dim() == 0) {
      throw DataError(fmt::format(
          "TensorDataset: the targets tensor is a scalar but data has {} samples; targets need "
          "the same first dimension as data",
          data_.size(0)));
    }
    if (targets_.size(0) != data_.size(0)) {
      throw DataError(fmt::format(
          "TensorDataset: data has {} samples but targets has {}; both must share their first "
          "dimension",
          data_.size(0), targets_.size(0)));
    }
  }
}

int64_t TensorDataset::size() const { return data_.size(0); }

Batch TensorDataset::get_batch(const std::vector<int64_t>& indices) const {
  const int64_t n = size();
  const auto count = static_cast<int64_t>(indices.size());
  // One scan over the indices (never over the samples): range check and "consecutive?" at once.
  bool consecutive = true;
  const int64_t first = count > 0 ? indices[0] : 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t index = indices[static_cast<size_t>(i)];
    if (index < 0 || index >= n) {
      throw DataError(
          fmt::format("TensorDataset: sample index {} is out of range [0, {})", index, n));
    }
    consecutive = consecutive && index == first + i;
  }
  if (consecutive) {
    // A view: no copy at all, the batch shares the dataset's storage.
    return {data_.narrow(0, first, count),
            targets_.defined() ? targets_.narrow(0, first, count) : torch::Tensor()};
  }
  // The vector outlives both index_select calls, so a borrowed view of it is safe and saves a copy.
  auto index = torch::from_blob(const_cast<int64_t*>(indices.data()), {count}, torch::kLong);
  auto data_index = data_.device().is_cpu() ? index : index.to(data_.device());
  Batch batch{data_.index_select(0, data_index), torch::Tensor()};
  if (targets_.defined()) {
    auto target_index = targets_.device() == data_index.device() ? data_index
                        : targets_.device().is_cpu()             ? index
                                                                 : index.to(targets_.device());
    batch.target = targets_.index_select(0, target_index);
  }
  return batch;
}

}  // namespace fulgur
