#pragma once
// CNNModule — the Fashion-MNIST classifier of the example: two 3×3 conv blocks (1→32→64
// channels, ReLU, 2×2 max-pool) and a two-layer head (3136→hidden→10, ReLU, dropout), trained
// with cross-entropy and Adam. It logs train_loss, and val_/test_ loss, accuracy (acc) and
// macro F1 (f1) through metric objects, which accumulate over the whole set (on every rank
// under DDP); it predicts class indices.
#include <torch/torch.h>

#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/f1_score.h"
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
  struct StageMetrics {
    std::shared_ptr<fulgur::metrics::Accuracy> accuracy;
    std::shared_ptr<fulgur::metrics::F1Score> f1;
  };
  static StageMetrics make_metrics();
  // One labelled batch: <stage>_loss logged, the stage's metrics updated and logged as
  // <stage>_acc and <stage>_f1 (their epoch values cover every batch of the stage).
  void evaluate(const fulgur::Batch& batch, const std::string& stage, StageMetrics& metrics);

  CNNModuleConfig config_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  StageMetrics val_metrics_ = make_metrics();
  StageMetrics test_metrics_ = make_metrics();
};

}  // namespace fashion_mnist
