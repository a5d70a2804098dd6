#include "cnn_module.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fashion_mnist {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

CNNModule::CNNModule(CNNModuleConfig config) : fulgur::Module("CNNModule"), config_(config) {
  if (config_.lr <= 0) {
    throw fulgur::ConfigError(fmt::format("model.lr must be positive, got {}", config_.lr));
  }
  if (config_.hidden < 1) {
    throw fulgur::ConfigError(
        fmt::format("model.hidden must be at least 1, got {}", config_.hidden));
  }
  if (config_.dropout < 0 || config_.dropout >= 1) {
    throw fulgur::ConfigError(
        fmt::format("model.dropout must lie in [0, 1), got {}", config_.dropout));
  }
  conv1_ = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)));
  conv2_ = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)));
  fc1_ = register_module("fc1", nn::Linear(64 * 7 * 7, config_.hidden));
  dropout_ = register_module("dropout", nn::Dropout(config_.dropout));
  fc2_ = register_module("fc2", nn::Linear(config_.hidden, 10));
  save_hyperparameters(
      {{"lr", config_.lr}, {"hidden", config_.hidden}, {"dropout", config_.dropout}});
}

torch::Tensor CNNModule::forward(const torch::Tensor& images) {
  auto x = F::max_pool2d(torch::relu(conv1_(images)), F::MaxPool2dFuncOptions(2));
  x = F::max_pool2d(torch::relu(conv2_(x)), F::MaxPool2dFuncOptions(2));
  x = dropout_(torch::relu(fc1_(x.flatten(1))));
  return fc2_(x);
}

torch::Tensor CNNModule::training_step(fulgur::Batch& batch, int64_t /*batch_idx*/) {
  auto loss = torch::cross_entropy_loss(forward(batch.data), batch.target);
  log("train_loss", loss, {.prog_bar = true});
  return loss;
}

CNNModule::StageMetrics CNNModule::make_metrics() {
  // Labels come from the dataset, so the per-batch value checks (a host read each) stay off.
  const fulgur::metrics::ClassificationOptions ten_classes{
      .task = "multiclass", .num_classes = 10, .average = "micro", .validate_args = false};
  auto macro = ten_classes;
  macro.average = "macro";
  return {std::make_shared<fulgur::metrics::Accuracy>(ten_classes),
          std::make_shared<fulgur::metrics::F1Score>(macro)};
}

void CNNModule::evaluate(const fulgur::Batch& batch, const std::string& stage,
                         StageMetrics& metrics) {
  const auto logits = forward(batch.data);
  // sync_dist: under DDP the loss covers the whole set, not this rank's shard (the metric
  // objects synchronise their own states).
  log(stage + "_loss", torch::cross_entropy_loss(logits, batch.target), {.sync_dist = true});
  metrics.accuracy->update(logits, batch.target);
  metrics.f1->update(logits, batch.target);
  log(stage + "_acc", metrics.accuracy, {.prog_bar = true});
  log(stage + "_f1", metrics.f1);
}

void CNNModule::validation_step(fulgur::Batch& batch, int64_t /*batch_idx*/) {
  evaluate(batch, "val", val_metrics_);
}

void CNNModule::test_step(fulgur::Batch& batch, int64_t /*batch_idx*/) {
  evaluate(batch, "test", test_metrics_);
}

torch::Tensor CNNModule::predict_step(fulgur::Batch& batch, int64_t /*batch_idx*/) {
  return forward(batch.data).argmax(1);
}

fulgur::OptimizerConfig CNNModule::configure_optimizers() {
  // The rate comes from the hparams, where the LearningRateFinder writes its suggestion.
  const double lr = std::get<double>(hparams().at("lr"));
  return std::make_shared<torch::optim::Adam>(parameters(), torch::optim::AdamOptions(lr));
}

}  // namespace fashion_mnist
