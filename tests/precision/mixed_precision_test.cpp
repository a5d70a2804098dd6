// "bf16-mixed" (autocast) and "bf16-true"/"16-true" (everything in half width): the autocast
// scope's nesting and restoring, what a forward computes in, what the Trainer leaves in the
// parameters, and that training still learns.
#include "fulgur/precision/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <c10/core/DefaultDtype.h>
#include <gtest/gtest.h>

#include "fulgur/compat/autocast_scope.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/precision/half_precision.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

using compat::AutocastScope;

TEST(AutocastScope, EnablesNestsAndRestoresWhatItFound) {
  const auto a = torch::randn({4, 4}), b = torch::randn({4, 4});
  ASSERT_FALSE(AutocastScope::is_enabled(c10::kCPU));
  const auto dtype_before = AutocastScope::dtype(c10::kCPU);
  {
    AutocastScope outer(c10::kCPU, torch::kBFloat16);
    EXPECT_TRUE(AutocastScope::is_enabled(c10::kCPU));
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    {
      AutocastScope inner(c10::kCPU, torch::kBFloat16);
      EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    }
    EXPECT_TRUE(AutocastScope::is_enabled(c10::kCPU));
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(AutocastScope::is_enabled(c10::kCPU));
  EXPECT_EQ(AutocastScope::dtype(c10::kCPU), dtype_before);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat32);
}

TEST(AutocastScope, TheOutermostScopeClearsTheCacheOfCastWeights) {
  // A weight (a leaf that requires grad) is cast once per autocast region and cached.
  const auto weight = torch::randn({4, 4}, torch::requires_grad());
  auto cast = [&] { return at::autocast::cached_cast(torch::kBFloat16, weight, c10::kCPU); };
  torch::Tensor first;
  {
    AutocastScope outer(c10::kCPU, torch::kBFloat16);
    first = cast();
    {
      AutocastScope inner(c10::kCPU, torch::kBFloat16);
      EXPECT_TRUE(cast().is_same(first));
    }
    EXPECT_TRUE(cast().is_same(first)) << "an inner scope must not clear the outer's cache";
  }
  AutocastScope next(c10::kCPU, torch::kBFloat16);
  EXPECT_FALSE(cast().is_same(first)) << "the outermost scope's end clears the cache";
}

TEST(AutocastScope, KnowsWhatThisLibTorchCanAutocast) {
  EXPECT_TRUE(AutocastScope::supports(c10::kCPU, torch::kBFloat16));
  EXPECT_TRUE(AutocastScope::supports(c10::kCUDA, torch::kHalf));
  EXPECT_FALSE(AutocastScope::supports(c10::kCPU, torch::kFloat64));
}

TEST(MixedPrecision, TheForwardComputesInBfloat16AndNothingElseChanges) {
  MixedPrecision precision;
  EXPECT_EQ(precision.name(), "bf16-mixed");
  EXPECT_EQ(precision.state_key(), "MixedPrecision");
  torch::nn::Linear linear(3, 2);
  precision.convert_module(*linear);
  EXPECT_EQ(linear->weight.scalar_type(), torch::kFloat32);
  const auto x = torch::randn({5, 3});
  EXPECT_TRUE(precision.convert_input(x).is_same(x));
  {
    auto scope = precision.forward_context();
    ASSERT_NE(scope, nullptr);
    EXPECT_EQ(linear(x).scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(linear(x).scalar_type(), torch::kFloat32);
}

TEST(MixedPrecision, Float16ComesWithALossScalerAndBfloat16WithoutOne) {
  MixedPrecision half(torch::kHalf, c10::kCUDA);
  EXPECT_EQ(half.name(), "16-mixed");
  ASSERT_NE(half.scaler(), nullptr);
  EXPECT_EQ(half.scaler()->current_scale(), 65536.0);
  EXPECT_EQ(MixedPrecision().scaler(), nullptr);
  EXPECT_TRUE(MixedPrecision().state_dict().isNone());
  EXPECT_THROW(MixedPrecision(torch::kFloat64), ConfigError);
}

TEST(HalfPrecision, ModuleInputsAndTheForwardsDefaultDtypeAreBfloat16) {
  HalfPrecision precision(torch::kBFloat16);
  EXPECT_EQ(precision.name(), "bf16-true");
  EXPECT_EQ(HalfPrecision(torch::kHalf).name(), "16-true");
  torch::nn::Linear linear(3, 2);
  precision.convert_module(*linear);
  EXPECT_EQ(linear->weight.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(precision.convert_input(torch::randn({2})).scalar_type(), torch::kBFloat16);
  EXPECT_EQ(precision.convert_input(torch::ones({2}, torch::kLong)).scalar_type(), torch::kLong);
  {
    auto scope = precision.forward_context();
    EXPECT_EQ(torch::ones({1}).scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(torch::ones({1}).scalar_type(), torch::kFloat32);
  EXPECT_THROW(HalfPrecision(torch::kFloat64), ConfigError);
}

// y = 3x - 1 with noise-free data: any precision that trains gets the loss down.
class Line : public Module {
 public:
  Line() : Module("Line") { linear_ = register_module("linear", torch::nn::Linear(1, 1)); }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    auto out = linear_(batch.data);
    forward_dtype = out.scalar_type();
    auto loss = torch::mse_loss(out.to(torch::kFloat32), batch.target.to(torch::kFloat32));
    losses.push_back(loss.item<double>());
    return loss;
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.3));
  }
  torch::nn::Linear linear_{nullptr};
  c10::ScalarType forward_dtype = torch::kFloat64;
  std::vector<double> losses;
};

// The same initial weights and data for every precision.
std::unique_ptr<Line> fit_line(const std::string& precision) {
  torch::manual_seed(0);
  auto model = std::make_unique<Line>();
  auto x = torch::rand({64, 1});
  auto loader = std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, 3 * x - 1),
                                             DataLoaderOptions{.batch_size = 8});
  Trainer trainer({.accelerator = "cpu",
                   .precision = precision,
                   .logger = false,
                   .max_epochs = 10,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(*model, loader);
  return model;
}

double weight_of(const Line& model) {
  return model.linear_->weight.to(torch::kFloat64).item<double>();
}

TEST(MixedPrecision, TheTrainerLearnsWithFloat32WeightsAndBfloat16Forwards) {
  const auto full = fit_line("32-true");
  const auto mixed = fit_line("bf16-mixed");
  EXPECT_EQ(full->forward_dtype, torch::kFloat32);
  EXPECT_EQ(mixed->forward_dtype, torch::kBFloat16);
  EXPECT_EQ(mixed->linear_->weight.scalar_type(), torch::kFloat32);
  EXPECT_EQ(mixed->linear_->weight.grad().scalar_type(), torch::kFloat32);
  ASSERT_EQ(mixed->losses.size(), 80u);
  EXPECT_LT(mixed->losses.back(), mixed->losses.front() / 10);
  // bfloat16 forwards (8 bits of mantissa) follow the float32 run closely.
  EXPECT_NEAR(weight_of(*mixed), weight_of(*full), 0.02);
  EXPECT_NEAR(weight_of(*full), 3.0, 0.3);
  EXPECT_FALSE(AutocastScope::is_enabled(c10::kCPU)) << "the scope must end with the step";
}

TEST(HalfPrecision, TheTrainerLearnsInBfloat16True) {
  const auto model = fit_line("bf16-true");
  EXPECT_EQ(model->forward_dtype, torch::kBFloat16);
  EXPECT_EQ(model->linear_->weight.scalar_type(), torch::kBFloat16);
  EXPECT_LT(model->losses.back(), model->losses.front() / 10);
  EXPECT_EQ(c10::get_default_dtype(), caffe2::TypeMeta::Make<float>());
}

}  // namespace
}  // namespace fulgur
