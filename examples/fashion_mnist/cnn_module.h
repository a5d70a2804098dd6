#pragma once
// CNNModule — the Fashion-MNIST classifier of the example: two 3×3 conv blocks (1→32→64
// channels, ReLU, 2×2 max-pool) and a two-layer head (3136→hidden→10, ReLU, dropout), trained
// with cross-entropy and Adam. It logs train_loss, val_loss/val_acc and test_loss/test_acc, and
// predicts class indices.
#include "fulgur/module.h"

namespace fashion_mnist {

struct CNNModuleConfig {
  double lr = 1e-3;
  int64_t hidden = 128;
  double dropout = 0.25;
};

class CNNModule : public fulgur::Module {
 public:
  explicit CNNModule(CNNModuleConfig config = {});

  // Logits, N×10, for N×1×28×28 images.
  torch::Tensor forward(const torch::Tensor& images);

  torch::Tensor training_step(fulgur::Batch& batch, int64_t batch_idx) override;
  void validation_step(fulgur::Batch& batch, int64_t batch_idx) override;
  void test_step(fulgur::Batch& batch, int64_t batch_idx) override;
  torch::Tensor predict_step(fulgur::Batch& batch, int64_t batch_idx) override;
  fulgur::OptimizerConfig configure_optimizers() override;

 private:
  // Loss and accuracy of one labelled batch, logged as <stage>_loss and <stage>_acc.
  void evaluate(const fulgur::Batch& batch, const std::string& stage);

  CNNModuleConfig config_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear fc2_{nullptr};
};

}  // namespace fashion_mnist
