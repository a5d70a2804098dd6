#pragma once
// Fashion-MNIST from its gzipped IDX files (Debian's `dataset-fashion-mnist` installs them under
// /usr/share/datasets/fashion-mnist). Images become float N×1×28×28 in [0, 1], labels int64.
// A missing, truncated or corrupt file raises DataError naming the file.
#include <string>

#include "fulgur/data/tensor_dataset.h"

namespace fulgur {

class FashionMNIST : public TensorDataset {
 public:
  static constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";
  enum class Split { Train, Test };
  explicit FashionMNIST(const std::string& data_dir = kDefaultDataDir, Split split = Split::Train);
  static constexpr int64_t kNumClasses = 10;
};

// Reads one gzipped IDX file into a uint8 tensor shaped as the file's header says.
torch::Tensor read_idx_gz(const std::string& path);

}  // namespace fulgur
