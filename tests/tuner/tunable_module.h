#pragma once
// Test helper: a linear regression whose learning rate and batch size come from its hparams,
// as tuned modules read them, and whose steps "run out of memory" (throw what CUDA's allocator
// throws) above a batch size, so the batch-size finder has a limit to find on a CPU.
#include <c10/util/Exception.h>

#include <optional>
#include <vector>

#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"

namespace fulgur::testing {

struct TunableModuleOptions {
  int64_t train_samples = 256;
  int64_t val_samples = 64;
  std::optional<int64_t> train_memory_limit;  // largest batch a training step can take
  std::optional<int64_t> val_memory_limit;
  std::optional<int64_t> test_memory_limit;  // of test_step and predict_step
};

class TunableModule : public Module {
 public:
  explicit TunableModule(TunableModuleOptions options = {})
      : Module("TunableModule"), options_(options) {
    torch::manual_seed(7);
    layer_ = register_module("layer", torch::nn::Linear(4, 1));
    x_ = torch::randn({options.train_samples + options.val_samples, 4});
    y_ = x_.matmul(torch::tensor({{1.5}, {-2.0}, {0.5}, {3.0}})) + 0.1 * torch::randn({x_.size(0), 1});
  }

  torch::Tensor training_step(Batch& batch, int64_t) override {
    check_memory(batch, options_.train_memory_limit);
    auto loss = torch::mse_loss(layer_->forward(batch.data), batch.target);
    losses_seen.push_back(loss.item<double>());
    return loss;
  }
  void validation_step(Batch& batch, int64_t) override {
    check_memory(batch, options_.val_memory_limit);
    log("val_loss", torch::mse_loss(layer_->forward(batch.data), batch.target));
  }
  void test_step(Batch& batch, int64_t) override {
    check_memory(batch, options_.test_memory_limit);
    ++test_batches;
  }
  torch::Tensor predict_step(Batch& batch, int64_t) override {
    check_memory(batch, options_.test_memory_limit);
    return layer_->forward(batch.data);
  }
  OptimizerConfig configure_optimizers() override {
    auto it = hparams().find("lr");
    const double lr = it != hparams().end() ? std::get<double>(it->second) : 0.01;
    configured_lrs.push_back(lr);
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(lr));
  }
  std::shared_ptr<DataLoader> train_dataloader() override {
    return loader(0, options_.train_samples, /*shuffle=*/true);
  }
  std::shared_ptr<DataLoader> val_dataloader() override {
    return loader(options_.train_samples, options_.val_samples, /*shuffle=*/false);
  }
  // Test and prediction read the validation samples.
  std::shared_ptr<DataLoader> test_dataloader() override { return val_dataloader(); }
  std::shared_ptr<DataLoader> predict_dataloader() override { return val_dataloader(); }
  // Both loaders at `batch_size`, for fits given loaders directly.
  std::shared_ptr<DataLoader> train_loader_of(int64_t batch_size) {
    return std::make_shared<DataLoader>(
        std::make_shared<TensorDataset>(x_.narrow(0, 0, options_.train_samples),
                                        y_.narrow(0, 0, options_.train_samples)),
        DataLoaderOptions{.batch_size = batch_size, .shuffle = true});
  }

  torch::Tensor weights() const { return torch::cat({layer_->weight.flatten(), layer_->bias}).clone(); }

  std::vector<double> configured_lrs;
  std::vector<int64_t> batch_sizes_seen;
  std::vector<double> losses_seen;  // every training step's loss
  int64_t test_batches = 0;

 private:
  std::shared_ptr<DataLoader> loader(int64_t start, int64_t n, bool shuffle) {
    // No batch_size hyperparameter: the loaders come from a DataModule.
    auto it = hparams().find("batch_size");
    if (it == hparams().end()) return nullptr;
    return std::make_shared<DataLoader>(
        std::make_shared<TensorDataset>(x_.narrow(0, start, n), y_.narrow(0, start, n)),
        DataLoaderOptions{.batch_size = std::get<int64_t>(it->second), .shuffle = shuffle});
  }
  void check_memory(const Batch& batch, std::optional<int64_t> limit) {
    const int64_t size = batch.data.size(0);
    batch_sizes_seen.push_back(size);
    TORCH_CHECK_WITH(OutOfMemoryError, !limit || size <= *limit,
                     "CUDA out of memory. Tried to allocate 2.00 GiB (simulated for batch size ",
                     size, ")");
  }

  TunableModuleOptions options_;
  torch::nn::Linear layer_{nullptr};
  torch::Tensor x_, y_;
};

}  // namespace fulgur::testing
