#include "fulgur/layer_sync/torch_sync_batch_norm.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "fulgur/nn/sync_batch_norm.h"

namespace fulgur {
namespace {

// The LibTorch batch norm class a layer is, or null.
const char* torch_batch_norm_name(torch::nn::Module& layer) {
  if (dynamic_cast<torch::nn::BatchNorm1dImpl*>(&layer)) return "torch::nn::BatchNorm1d";
  if (dynamic_cast<torch::nn::BatchNorm2dImpl*>(&layer)) return "torch::nn::BatchNorm2d";
  if (dynamic_cast<torch::nn::BatchNorm3dImpl*>(&layer)) return "torch::nn::BatchNorm3d";
  return nullptr;
}

}  // namespace

void TorchSyncBatchNorm::apply(torch::nn::Module& module, Strategy& strategy) {
  revert();
  std::vector<std::shared_ptr<nn::SyncBatchNormImpl>> found;
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    if (const char* kind = torch_batch_norm_name(*item.value())) {
      throw ConfigError(fmt::format(
          "sync_batchnorm=true cannot synchronise the {} at \"{}\": C++ cannot swap a layer "
          "its parent holds, as Lightning does in Python; declare it as "
          "fulgur::nn::SyncBatchNorm (plain batch norm when not synchronised)",
          kind, item.key()));
    }
    if (auto layer = std::dynamic_pointer_cast<nn::SyncBatchNormImpl>(item.value())) {
      found.push_back(std::move(layer));
    }
  }
  for (auto& layer : found) layer->set_strategy(&strategy);
  attached_ = std::move(found);
}

void TorchSyncBatchNorm::revert() {
  for (auto& layer : attached_) layer->set_strategy(nullptr);
  attached_.clear();
}

}  // namespace fulgur
