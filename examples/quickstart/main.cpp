// The README's example, compiled so that it stays true.
#include "fulgur/fulgur.h"

struct Classifier : fulgur::Module {
  torch::nn::Linear hidden{nullptr}, out{nullptr};
  Classifier() : Module("Classifier") {
    hidden = register_module("hidden", torch::nn::Linear(784, 128));
    out = register_module("out", torch::nn::Linear(128, 10));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return out->forward(torch::relu(hidden->forward(x.flatten(1))));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    auto loss = torch::cross_entropy_loss(forward(batch.data), batch.target);
    log("train_loss", loss, {.prog_bar = true});
    return loss;
  }
  void validation_step(fulgur::Batch& batch, int64_t) override {
    auto logits = forward(batch.data);
    log("val_loss", torch::cross_entropy_loss(logits, batch.target));
    log("val_acc", logits.argmax(1).eq(batch.target).to(torch::kFloat).mean(), {.prog_bar = true});
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::Adam>(parameters(), 1e-3);
  }
};

int main() {
  auto train = std::make_shared<fulgur::FashionMNIST>();  // /usr/share/datasets/fashion-mnist
  auto test = std::make_shared<fulgur::FashionMNIST>(fulgur::FashionMNIST::kDefaultDataDir,
                                                     fulgur::FashionMNIST::Split::Test);
  auto train_loader = std::make_shared<fulgur::DataLoader>(
      train, fulgur::DataLoaderOptions{.batch_size = 64, .shuffle = true, .seed = 42});
  auto val_loader = std::make_shared<fulgur::DataLoader>(
      test, fulgur::DataLoaderOptions{.batch_size = 256});

  Classifier model;
  fulgur::Trainer trainer({.accelerator = "cpu", .max_epochs = 3});
  trainer.fit(model, train_loader, val_loader);
  auto metrics = trainer.validate(model, val_loader);   // prints the results table
  return metrics.at("val_acc") > 0.8 ? 0 : 1;
}
