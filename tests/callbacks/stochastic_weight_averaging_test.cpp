// StochasticWeightAveraging: the weights at the start of each SWA epoch averaged and given to the
// Module after the last; SWALR in place of the configured scheduler; with batch norms an epoch
// more without optimizer steps that recomputes their statistics for the averaged weights; the
// resumed fit equal to the uninterrupted one; the state in Lightning's keys, read by Python; the
// errors.
#include "fulgur/callbacks/stochastic_weight_averaging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "callbacks/checkpointing.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/optim/exponential_lr.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "optim/python_reference.h"
#include "temp_dir.h"

namespace fulgur::testing {
namespace {

using ::testing::HasSubstr;

// Linear 4→3, optionally BatchNorm1d(3), Linear 3→1; regression on 8 samples in batches of 2
// (4 steps per epoch), SGD with rate 0.1, optionally a StepLR halving it every epoch.
class Averaged : public Module {
 public:
  explicit Averaged(bool batch_norm, int schedulers = 0)
      : Module("Averaged"), schedulers_(schedulers) {
    torch::manual_seed(3);
    first = register_module("first", torch::nn::Linear(4, 3));
    if (batch_norm) norm = register_module("norm", torch::nn::BatchNorm1d(3));
    last = register_module("last", torch::nn::Linear(3, 1));
  }
  torch::Tensor hidden(const torch::Tensor& x) {
    auto h = first(x);
    return norm ? norm(h) : h;
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    ++training_steps;
    return torch::mse_loss(last(torch::relu(hidden(batch.data))), batch.target);
  }
  OptimizerConfig configure_optimizers() override {
    auto sgd = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    std::vector<SchedulerConfig> schedulers;
    if (schedulers_ >= 1)
      schedulers.push_back({.scheduler = std::make_shared<StepLR>(*sgd, 1, 0.5)});
    if (schedulers_ >= 2)
      schedulers.push_back({.scheduler = std::make_shared<ExponentialLR>(*sgd, 0.9)});
    return OptimizerConfig({sgd}, schedulers);
  }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(8); }
  void on_train_epoch_start() override {
    epoch_weights.push_back(weights());
    epoch_lrs.push_back(trainer()->optimizers().at(0)->param_groups().at(0).options().get_lr());
  }
  std::vector<torch::Tensor> weights() {
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters()) out.push_back(p.detach().clone());
    return out;
  }

  torch::nn::Linear first{nullptr}, last{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
  std::vector<std::vector<torch::Tensor>> epoch_weights;
  std::vector<double> epoch_lrs;
  int training_steps = 0;

 private:
  int schedulers_;
};

// The running mean the callback keeps, over the weights at the start of `epochs`.
std::vector<torch::Tensor> mean_of(const Averaged& module, const std::vector<size_t>& epochs) {
  std::vector<torch::Tensor> mean;
  for (size_t n = 0; n < epochs.size(); ++n) {
    const auto& w = module.epoch_weights.at(epochs[n]);
    if (n == 0) {
      for (const auto& t : w) mean.push_back(t.clone());
    } else {
      for (size_t i = 0; i < w.size(); ++i) {
        mean[i] = mean[i] + (w[i] - mean[i]) / static_cast<double>(n + 1);
      }
    }
  }
  return mean;
}

void expect_close(const std::vector<torch::Tensor>& got, const std::vector<torch::Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(torch::allclose(got[i], want[i], 1e-6, 1e-7)) << i << "\n" << got[i] << want[i];
  }
}

std::shared_ptr<StochasticWeightAveraging> swa(StochasticWeightAveragingOptions options) {
  return std::make_shared<StochasticWeightAveraging>(std::move(options));
}

TEST(StochasticWeightAveraging, AveragesTheEpochStartsAndAnnealsTheRateInsteadOfTheScheduler) {
  Averaged module(/*batch_norm=*/false, /*schedulers=*/1);
  auto callback = swa({.swa_lrs = {0.01}, .swa_epoch_start = int64_t{3}, .annealing_epochs = 2});
  Trainer trainer(quiet({.callbacks = {callback}, .max_epochs = 5}));
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  EXPECT_THAT(::testing::internal::GetCapturedStdout(),
              HasSubstr("Swapping scheduler `StepLR` for `SWALR`\n"));
  EXPECT_EQ(callback->swa_start(), 2);
  EXPECT_EQ(callback->swa_end(), 4);
  EXPECT_EQ(callback->n_averaged(), 3);
  // StepLR halves the rate after epochs 0 and 1; from epoch 2 SWALR anneals it (cos, 2 epochs)
  // from 0.025 to 0.01: 0.01 * 0.5 + 0.025 * 0.5, then 0.01.
  const std::vector<double> lrs{0.1, 0.05, 0.025, 0.0175, 0.01};
  ASSERT_EQ(module.epoch_lrs.size(), lrs.size());
  for (size_t e = 0; e < lrs.size(); ++e) EXPECT_NEAR(module.epoch_lrs[e], lrs[e], 1e-15) << e;
  ASSERT_EQ(trainer.lr_scheduler_configs().size(), 1u);
  EXPECT_EQ(trainer.lr_scheduler_configs()[0].scheduler->name(), "SWALR");
  // The Module ends with the mean of its weights at the starts of epochs 2, 3 and 4.
  const auto expected = mean_of(module, {2, 3, 4});
  expect_close(module.weights(), expected);
  // The weights moved between those epochs: averaging them is not the last ones.
  double moved = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    moved = std::max(
        moved,
        (module.epoch_weights[4][i] - module.epoch_weights[2][i]).abs().max().item<double>());
  }
  EXPECT_GT(moved, 1e-3);
  EXPECT_EQ(trainer.current_epoch(), 5);
  EXPECT_EQ(module.training_steps, 20);
}

TEST(StochasticWeightAveraging, AFractionOfMaxEpochsStartsAtItsIntegerPart) {
  Averaged module(/*batch_norm=*/false);
  auto callback = swa({.swa_lrs = {0.01}});  // swa_epoch_start 0.8 of 5: epoch 4, index 3
  Trainer trainer(quiet({.callbacks = {callback}, .max_epochs = 5}));
  trainer.fit(module);
  EXPECT_EQ(callback->swa_start(), 3);
  EXPECT_EQ(callback->n_averaged(), 2);
  expect_close(module.weights(), mean_of(module, {3, 4}));
  // No scheduler configured: SWALR was added.
  ASSERT_EQ(trainer.lr_scheduler_configs().size(), 1u);
  EXPECT_EQ(trainer.lr_scheduler_configs()[0].scheduler->name(), "SWALR");
}

TEST(StochasticWeightAveraging, BatchNormsGetAnEpochMoreThatRecomputesTheirStatistics) {
  Averaged module(/*batch_norm=*/true);
  auto callback = swa({.swa_lrs = {0.05}, .swa_epoch_start = int64_t{2}});
  Trainer trainer(quiet({.callbacks = {callback}, .max_epochs = 3}));
  trainer.fit(module);
  // Epochs 0-2 train; epoch 3 runs training_step alone: no optimizer step, no new global step.
  EXPECT_EQ(trainer.current_epoch(), 4);
  EXPECT_EQ(trainer.max_epochs(), 3);
  EXPECT_EQ(trainer.global_step(), 12);
  EXPECT_EQ(module.training_steps, 16);
  EXPECT_FALSE(trainer.fit_loop().skip_backward);
  ASSERT_EQ(module.epoch_weights.size(), 4u);
  // The batch-norm epoch starts with the averages of the starts of epochs 1 and 2, and they do
  // not move in it.
  expect_close(module.epoch_weights[3], mean_of(module, {1, 2}));
  const auto final_weights = module.weights();
  for (size_t i = 0; i < final_weights.size(); ++i) {
    EXPECT_TRUE(torch::equal(final_weights[i], module.epoch_weights[3][i])) << i;
  }
  // Running statistics: the plain mean over the epoch's 4 batches (momentum None) of each
  // batch's mean and unbiased variance, for the averaged weights; momentum 0.1 again after.
  torch::NoGradGuard no_grad;
  const auto x = torch::arange(32, torch::kFloat).reshape({8, 4}) / 10.0;
  torch::Tensor mean = torch::zeros({3}), var = torch::zeros({3});
  for (int64_t b = 0; b < 4; ++b) {
    const auto h = module.first(x.narrow(0, 2 * b, 2));
    mean += h.mean(0) / 4.0;
    var += h.var(0, /*unbiased=*/true) / 4.0;
  }
  EXPECT_TRUE(torch::allclose(module.norm->running_mean, mean, 1e-5, 1e-6))
      << module.norm->running_mean << mean;
  EXPECT_TRUE(torch::allclose(module.norm->running_var, var, 1e-5, 1e-6))
      << module.norm->running_var << var;
  EXPECT_EQ(module.norm->num_batches_tracked.item<int64_t>(), 4);
  ASSERT_TRUE(module.norm->options.momentum().has_value());
  EXPECT_EQ(*module.norm->options.momentum(), 0.1);
}

TEST(StochasticWeightAveraging, BadOptionsAndSeveralSchedulersAreMisconfigurations) {
  auto error_of = [](StochasticWeightAveragingOptions o) {
    try {
      StochasticWeightAveraging callback(std::move(o));
    } catch (const MisconfigurationError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({}), "The `swa_lrs` should be a positive float, or a list of positive floats");
  EXPECT_EQ(error_of({.swa_lrs = {0.1, -0.1}}),
            "The `swa_lrs` should be a positive float, or a list of positive floats");
  EXPECT_EQ(error_of({.swa_lrs = {0.1}, .swa_epoch_start = int64_t{0}}),
            "swa_epoch_start should be a >0 integer or a float between 0 and 1.");
  EXPECT_EQ(error_of({.swa_lrs = {0.1}, .swa_epoch_start = 1.5}),
            "swa_epoch_start should be a >0 integer or a float between 0 and 1.");
  EXPECT_EQ(error_of({.swa_lrs = {0.1}, .annealing_strategy = "step"}),
            "annealing_strategy must be one of 'cos' or 'linear', got 'step'");
  EXPECT_EQ(error_of({.swa_lrs = {0.1}, .annealing_epochs = -1}),
            "annealing_epochs must be equal or greater than 0, got -1");

  Averaged module(/*batch_norm=*/false, /*schedulers=*/2);
  Trainer trainer(quiet({.callbacks = {swa({.swa_lrs = {0.01}})}, .max_epochs = 2}));
  EXPECT_THAT([&] { trainer.fit(module); },
              ::testing::ThrowsMessage<MisconfigurationError>(
                  "SWA currently not supported for more than 1 `lr_scheduler`."));
}

class StochasticWeightAveragingResume : public TempDirTest {
 protected:
  // Fits to 4 epochs (SWA from index 2; with the batch norm, epoch 4 recomputes it) with a
  // checkpoint at every epoch's end, from `ckpt` if given.
  Trainer& fit(Averaged& module, std::optional<std::string> ckpt = std::nullopt) {
    auto o =
        checkpointing_only({.callbacks = {std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
                                              .dirpath = path("ckpt"), .save_top_k = -1}),
                                          swa({.swa_lrs = {0.02},
                                               .swa_epoch_start = int64_t{3},
                                               .annealing_epochs = 3})},
                            .max_epochs = 4});
    o.logger = false;
    trainer_ = std::make_unique<Trainer>(o);
    ::testing::internal::CaptureStdout();
    trainer_->fit(module, nullptr, nullptr, std::move(ckpt));
    ::testing::internal::GetCapturedStdout();
    return *trainer_;
  }
  std::unique_ptr<Trainer> trainer_;
};

TEST_F(StochasticWeightAveragingResume, ResumingBeforeOrDuringAveragingEqualsTheUninterruptedFit) {
  Averaged straight(/*batch_norm=*/true, /*schedulers=*/1);
  fit(straight);
  const auto expected = straight.weights();
  const auto expected_mean = straight.norm->running_mean.clone();
  for (const char* name : {"epoch=1-step=8.ckpt", "epoch=2-step=12.ckpt", "epoch=3-step=16.ckpt"}) {
    SCOPED_TRACE(name);
    Averaged resumed(/*batch_norm=*/true, /*schedulers=*/1);
    Trainer& trainer = fit(resumed, path("ckpt/") + name);
    const auto got = resumed.weights();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(torch::equal(got[i], expected[i])) << i;
    EXPECT_TRUE(torch::equal(resumed.norm->running_mean, expected_mean));
    EXPECT_EQ(resumed.epoch_lrs.back(), straight.epoch_lrs.back());
    EXPECT_EQ(trainer.current_epoch(), 5);
  }
}

TEST_F(StochasticWeightAveragingResume, PythonReadsTheStateInLightningsKeys) {
  Averaged module(/*batch_norm=*/true, /*schedulers=*/1);
  fit(module);
  const std::string text = run_python(
      "import torch\n"
      "c = torch.load('" + path("ckpt/epoch=3-step=16.ckpt") + "', map_location='cpu')\n"
      "s = c['callbacks']['StochasticWeightAveraging']\n"
      "print(s['n_averaged'], s['latest_update_epoch'])\n"
      "print(s['scheduler_state']['anneal_epochs'], s['scheduler_state']['anneal_strategy'], "
      "s['scheduler_state']['swa_lrs'])\n"
      "print(' '.join(sorted(s['average_model_state'])))\n"
      "print(type(c['lr_schedulers'][0].get('step_size')).__name__)\n");
  EXPECT_EQ(text,
            "2 3\n3 cos [0.02]\n"
            "first.bias first.weight last.bias last.weight norm.bias norm.num_batches_tracked "
            "norm.running_mean norm.running_var norm.weight\n"
            "int\n");
}

}  // namespace
}  // namespace fulgur::testing
