#pragma once
// SyncBatchNorm (PyTorch's torch.nn.SyncBatchNorm): batch normalization whose training-mode
// statistics are those of the whole global batch, every rank's samples together, instead of
// this process's share. Until a Strategy is attached (TorchSyncBatchNorm::apply, which the
// Trainer runs under sync_batchnorm=true) and whenever the world is one process or the layer
// is evaluating, it is plain batch normalization, numerically LibTorch's own. Parameters and
// buffers carry BatchNorm's names, so state dicts move between the two and Python.
//
// Unlike PyTorch's it also synchronises CPU tensors: the collectives go through the Strategy.
#include <torch/nn/cloneable.h>
#include <torch/nn/options/batchnorm.h>
#include <torch/nn/pimpl.h>

namespace fulgur {

class Strategy;

namespace nn {

class SyncBatchNormImpl : public torch::nn::Cloneable<SyncBatchNormImpl> {
 public:
  explicit SyncBatchNormImpl(int64_t num_features)
      : SyncBatchNormImpl(torch::nn::BatchNormOptions(num_features)) {}
  explicit SyncBatchNormImpl(const torch::nn::BatchNormOptions& options);

  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  // (N, C, ...) in, the same shape out.
  torch::Tensor forward(const torch::Tensor& input);

  // The strategy whose ranks share the statistics; null stops synchronising.
  void set_strategy(Strategy* strategy) { strategy_ = strategy; }
  Strategy* strategy() const { return strategy_; }

  torch::nn::BatchNormOptions options;
  torch::Tensor weight, bias;                                    // affine
  torch::Tensor running_mean, running_var, num_batches_tracked;  // track_running_stats

 private:
  Strategy* strategy_ = nullptr;
};

TORCH_MODULE(SyncBatchNorm);

}  // namespace nn
}  // namespace fulgur
