// GradScaler, on the CPU (plain tensor operations): scaling and unscaling, a step skipped on
// inf/NaN with the scale backed off, growth after the interval, bad options and checkpoint
// state; and through the Trainer: a skipped step leaves the weights and the step-interval
// scheduler alone, hooks see unscaled gradients, and the scaler's state round-trips through a
// checkpoint under "MixedPrecision".
#include "fulgur/precision/grad_scaler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/precision/mixed_precision.h"
#include "fulgur/trainer.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct OneWeight {
  torch::Tensor w = torch::ones({2}, torch::requires_grad());
  torch::optim::SGD sgd{std::vector<torch::Tensor>{w}, torch::optim::SGDOptions(0.1)};
};

TEST(GradScaler, ScalesTheLossAndUnscalesTheGradients) {
  GradScaler scaler;
  OneWeight m;
  auto loss = (m.w * torch::tensor({1.0f, 2.0f})).sum();
  const auto scaled = scaler.scale(loss);
  EXPECT_FLOAT_EQ(scaled.item<float>(), 65536.0f * 3.0f);
  scaled.backward();
  EXPECT_FLOAT_EQ(m.w.grad()[1].item<float>(), 2.0f * 65536.0f);
  scaler.unscale(m.sgd);
  EXPECT_FLOAT_EQ(m.w.grad()[0].item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(m.w.grad()[1].item<float>(), 2.0f);
  EXPECT_TRUE(scaler.step(m.sgd));
  scaler.update();
  EXPECT_FLOAT_EQ(m.w[1].item<float>(), 1.0f - 0.1f * 2.0f);
  EXPECT_EQ(scaler.growth_tracker(), 1);
  EXPECT_THROW({ scaler.unscale(m.sgd); scaler.unscale(m.sgd); }, MisconfigurationError);
}

TEST(GradScaler, AnInfOrNanGradientSkipsTheStepAndHalvesTheScale) {
  for (const double bad : {kInf, std::nan("")}) {
    GradScaler scaler;
    OneWeight m;
    scaler.scale((m.w * torch::tensor({1.0, bad}, torch::kFloat32)).sum()).backward();
    EXPECT_FALSE(scaler.step(m.sgd)) << bad;
    scaler.update();
    EXPECT_TRUE(torch::equal(m.w, torch::ones({2}))) << "the weights must not move";
    EXPECT_EQ(scaler.current_scale(), 32768.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
  }
}

TEST(GradScaler, GrowsAfterGrowthIntervalGoodStepsInARow) {
  GradScaler scaler({.init_scale = 8, .growth_interval = 3});
  OneWeight m;
  auto good_step = [&] {
    m.sgd.zero_grad();
    scaler.scale(m.w.sum()).backward();
    EXPECT_TRUE(scaler.step(m.sgd));
    scaler.update();
  };
  good_step();
  good_step();
  EXPECT_EQ(scaler.current_scale(), 8.0);
  EXPECT_EQ(scaler.growth_tracker(), 2);
  good_step();
  EXPECT_EQ(scaler.current_scale(), 16.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, StateRoundTripsWithPyTorchsKeys) {
  GradScaler scaler({.init_scale = 1024, .growth_interval = 5});
  OneWeight m;
  scaler.scale(m.w.sum()).backward();
  scaler.step(m.sgd);
  scaler.update();
  const auto state = scaler.state_dict().toGenericDict();
  EXPECT_EQ(state.at("scale").toDouble(), 1024.0);
  EXPECT_EQ(state.at("_growth_tracker").toInt(), 1);
  EXPECT_EQ(state.at("growth_interval").toInt(), 5);
  EXPECT_EQ(state.at("growth_factor").toDouble(), 2.0);
  EXPECT_EQ(state.at("backoff_factor").toDouble(), 0.5);
  GradScaler restored;
  restored.load_state_dict(state);
  EXPECT_EQ(restored.current_scale(), 1024.0);
  EXPECT_EQ(restored.growth_tracker(), 1);
  EXPECT_EQ(restored.options().growth_interval, 5);
  EXPECT_THROW(restored.load_state_dict(c10::IValue(3)), CheckpointError);
}

TEST(GradScaler, RejectsOptionsThatCannotWork) {
  try {
    GradScaler scaler({.growth_factor = 0.5});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "GradScaler(init_scale=65536, growth_factor=0.5, backoff_factor=0.5, "
                 "growth_interval=2000): needs init_scale > 0, growth_factor > 1, 0 < "
                 "backoff_factor < 1, growth_interval >= 1");
  }
}

// Scaled training through the Trainer, on the CPU: "bf16-mixed" given a scaler runs the same
// path "16-mixed" runs on CUDA. Step `bad_step`'s loss is multiplied by inf.
class Poisoned : public Module {
 public:
  explicit Poisoned(int64_t bad_step) : Module("Poisoned"), bad_step_(bad_step) {
    torch::manual_seed(0);
    linear_ = register_module("linear", torch::nn::Linear(2, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
    weights_before.push_back(linear_->weight.detach().clone());
    auto loss = torch::mse_loss(linear_(batch.data).to(torch::kFloat32), batch.target);
    return batch_idx == bad_step_ ? loss * kInf : loss;
  }
  void on_before_optimizer_step(Optimizer&) override {
    grad_norms.push_back(linear_->weight.grad().norm().item<double>());
  }
  OptimizerConfig configure_optimizers() override {
    auto sgd = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    scheduler = std::make_shared<StepLR>(*sgd, 1, 0.5);
    return OptimizerConfig({sgd}, {{.scheduler = scheduler, .interval = "step"}});
  }
  torch::nn::Linear linear_{nullptr};
  std::shared_ptr<StepLR> scheduler;
  std::vector<torch::Tensor> weights_before;
  std::vector<double> grad_norms;

 private:
  int64_t bad_step_;
};

class GradScalerTrainerTest : public testing::TempDirTest {
 protected:
  std::shared_ptr<MixedPrecision> precision() {
    return std::make_shared<MixedPrecision>(
        torch::kBFloat16, c10::kCPU,
        std::make_shared<GradScaler>(GradScalerOptions{.init_scale = 1024}));
  }
  // One quiet CPU epoch under `precision`.
  static TrainerOptions options(std::shared_ptr<MixedPrecision> precision) {
    return {.accelerator = "cpu",
            .precision = std::move(precision),
            .logger = false,
            .max_epochs = 1,
            .enable_checkpointing = false,
            .enable_progress_bar = false,
            .enable_model_summary = false};
  }
  std::shared_ptr<DataLoader> data() {
    torch::manual_seed(1);
    auto x = torch::randn({16, 2});
    return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, x.sum(1, true)),
                                        DataLoaderOptions{.batch_size = 4});
  }
};

TEST_F(GradScalerTrainerTest, ASkippedStepLeavesWeightsAndSchedulerAloneAndBacksOff) {
  auto mixed = precision();
  Poisoned model(/*bad_step=*/1);
  Trainer trainer(options(mixed));
  trainer.fit(model, data());
  ASSERT_EQ(model.weights_before.size(), 4u);
  // Step 1 was skipped: the weights before step 2 are those before step 1.
  EXPECT_FALSE(torch::equal(model.weights_before[0], model.weights_before[1]));
  EXPECT_TRUE(torch::equal(model.weights_before[1], model.weights_before[2]));
  EXPECT_FALSE(torch::equal(model.weights_before[2], model.weights_before[3]));
  // 4 batches, 3 real steps: the step-interval StepLR(1, 0.5) halved the rate 3 times, not 4.
  EXPECT_DOUBLE_EQ(model.scheduler->get_last_lr()[0], 0.1 * 0.5 * 0.5 * 0.5);
  EXPECT_EQ(trainer.global_step(), 4);  // Lightning counts skipped steps too
  EXPECT_EQ(mixed->scaler()->current_scale(), 512.0);
  EXPECT_EQ(mixed->scaler()->growth_tracker(), 2);
  // The hooks saw unscaled gradients: scaled by 1024 they would be in the hundreds.
  EXPECT_LT(model.grad_norms[0], 50.0);
}

TEST_F(GradScalerTrainerTest, TheScalerStateGoesIntoTheCheckpointAndComesBack) {
  auto mixed = precision();
  Poisoned model(/*bad_step=*/0);
  Trainer trainer(options(mixed));
  trainer.fit(model, data());
  const std::string path = this->path("scaled.ckpt");
  trainer.save_checkpoint(path);
  EXPECT_EQ(mixed->scaler()->current_scale(), 512.0);

  auto again = precision();
  Poisoned resumed(/*bad_step=*/-1);
  TrainerOptions two_epochs = options(again);
  two_epochs.max_epochs = 2;
  Trainer second(two_epochs);
  second.fit(resumed, data(), nullptr, path);
  // Restored at 512 with 3 good steps behind it, then 4 more good ones (interval 2000).
  EXPECT_EQ(again->scaler()->current_scale(), 512.0);
  EXPECT_EQ(again->scaler()->growth_tracker(), 7);
}

}  // namespace
}  // namespace fulgur
