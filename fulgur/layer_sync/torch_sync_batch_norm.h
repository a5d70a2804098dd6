#pragma once
// TorchSyncBatchNorm (Lightning's, what sync_batchnorm=true installs): every
// fulgur::nn::SyncBatchNorm in the module computes its statistics over all ranks.
//
// Lightning swaps each BatchNorm layer for a SyncBatchNorm. C++ cannot: the parent's member
// holder keeps calling the old layer. So the model declares fulgur::nn::SyncBatchNorm where it
// wants synchronised statistics (plain batch norm outside sync_batchnorm), and a LibTorch
// torch::nn::BatchNorm{1,2,3}d met here is a ConfigError naming it rather than a layer that
// silently stays local.
#include <memory>
#include <vector>

#include "fulgur/layer_sync/layer_sync.h"

namespace fulgur {

namespace nn {
class SyncBatchNormImpl;
}  // namespace nn

class TorchSyncBatchNorm : public LayerSync {
 public:
  void apply(torch::nn::Module& module, Strategy& strategy) override;
  // Back to local statistics (the layers apply() attached).
  void revert() override;

 private:
  std::vector<std::shared_ptr<nn::SyncBatchNormImpl>> attached_;
};

}  // namespace fulgur
