// A user's program: a Module and a few steps of Trainer.fit, built against an installed fulgur
// (tests/package/consumer) or one taken in with FetchContent (tests/package/fetchcontent).
#include <iostream>

#include <fulgur/fulgur.h>
#include <fulgur/version.h>

class Regression : public fulgur::Module {
 public:
  Regression() { layer_ = register_module("layer", torch::nn::Linear(3, 1)); }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    return torch::mse_loss(layer_->forward(batch.data), batch.target);
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }

 private:
  torch::nn::Linear layer_{nullptr};
};

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({40, 3});
  auto loader = std::make_shared<fulgur::DataLoader>(
      std::make_shared<fulgur::TensorDataset>(x, x.sum(1, true)),
      fulgur::DataLoaderOptions{.batch_size = 8});
  Regression module;
  fulgur::Trainer trainer({.logger = false, .max_steps = 5, .enable_checkpointing = false,
                           .enable_progress_bar = false, .enable_model_summary = false});
  trainer.fit(module, loader);
  std::cout << "consumer: " << trainer.global_step() << " steps with fulgur " << fulgur::version()
            << '\n';
  return trainer.global_step() == 5 ? 0 : 1;
}
