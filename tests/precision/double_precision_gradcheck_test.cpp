// "64-true" is the gradient-check precision: through the Strategy (module and batch converted
// by the precision, the step, backward), autograd's gradients match central finite differences
// of the same loss to float64 accuracy.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/module.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {
namespace {

// 3 → 4 → 1 with a smooth non-linearity, so second-order effects are real.
class Smooth : public Module {
 public:
  Smooth() : Module("Smooth") {
    hidden_ = register_module("hidden", torch::nn::Linear(3, 4));
    out_ = register_module("out", torch::nn::Linear(4, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    return torch::mse_loss(out_(torch::tanh(hidden_(batch.data))), batch.target);
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }

 private:
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
};

TEST(DoublePrecision, GradientsMatchCentralFiniteDifferences) {
  torch::manual_seed(0);
  AcceleratorConnector connector({.accelerator = "cpu", .precision = "64-true"});
  Strategy& strategy = *connector.strategy();
  Smooth model;
  strategy.setup_module(model);
  Batch batch;
  batch.data = torch::randn({5, 3});  // float32 in; the precision makes it float64
  batch.target = torch::randn({5, 1});
  batch = strategy.batch_to_device(model, std::move(batch));
  ASSERT_EQ(batch.data.scalar_type(), torch::kFloat64);

  model.zero_grad();
  strategy.backward(strategy.training_step(model, batch, 0), &model);

  const double eps = 1e-6;
  double worst = 0;
  torch::NoGradGuard no_grad;
  for (auto& parameter : model.parameters()) {
    ASSERT_EQ(parameter.scalar_type(), torch::kFloat64);
    auto flat = parameter.view({-1});
    const auto analytic = parameter.grad().view({-1});
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double original = flat[i].item<double>();
      flat[i] = original + eps;
      const double up = strategy.training_step(model, batch, 0).item<double>();
      flat[i] = original - eps;
      const double down = strategy.training_step(model, batch, 0).item<double>();
      flat[i] = original;
      const double numeric = (up - down) / (2 * eps);
      worst = std::max(worst, std::abs(numeric - analytic[i].item<double>()) /
                                  std::max(1.0, std::abs(numeric)));
    }
  }
  // Central differences in float64 are good to ~1e-9 here; float32 would manage ~1e-3.
  EXPECT_LT(worst, 1e-7);
}

}  // namespace
}  // namespace fulgur
