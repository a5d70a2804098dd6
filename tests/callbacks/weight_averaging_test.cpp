// WeightAveraging and EMAWeightAveraging: the average of the weights after each optimizer step
// (or epoch) against the same average of the weights each step left; validation on the average
// while training goes on from its own weights; the Module ends with the average; when updates
// happen (every n steps, from a step or an epoch, once per accumulated step); checkpoints in
// Lightning's layout, read by Python, and a resumed fit equal to the uninterrupted one; the errors.
#include "fulgur/callbacks/weight_averaging.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "callbacks/checkpointing.h"
#include "fulgur/callbacks/ema_weight_averaging.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "optim/python_reference.h"
#include "temp_dir.h"

namespace fulgur::testing {
namespace {

using ::testing::HasSubstr;
using Weights = std::vector<torch::Tensor>;

// Linear 4→3, BatchNorm1d(3), Linear 3→1; regression on 8 samples in batches of 2 (4 batches
// per epoch) with SGD at 0.1, validated on 4 samples. Records its parameters and buffers after
// every training batch and when each validation epoch starts.
class Trained : public Module {
 public:
  Trained() : Module("Trained") {
    torch::manual_seed(5);
    first = register_module("first", torch::nn::Linear(4, 3));
    norm = register_module("norm", torch::nn::BatchNorm1d(3));
    last = register_module("last", torch::nn::Linear(3, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return last(torch::relu(norm(first(x)))); }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    return torch::mse_loss(forward(batch.data), batch.target);
  }
  void validation_step(Batch& batch, int64_t) override {
    log("val_loss", torch::mse_loss(forward(batch.data), batch.target));
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(8); }
  std::shared_ptr<DataLoader> val_dataloader() override { return make_loader(4); }
  void on_train_batch_end(const torch::Tensor&, Batch&, int64_t) override {
    after_batch.push_back(weights());
  }
  void on_validation_epoch_start() override { validated.push_back(weights()); }
  Weights weights() {
    Weights out;
    for (const auto& p : parameters()) out.push_back(p.detach().clone());
    for (const auto& b : buffers()) out.push_back(b.detach().clone());
    return out;
  }

  torch::nn::Linear first{nullptr}, last{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
  std::vector<Weights> after_batch;
  std::vector<Weights> validated;
};

// The exponential moving average of `steps` (the first taken as it is), in each tensor's dtype
// as AveragedModel keeps it.
Weights ema_of(const std::vector<Weights>& steps, double decay) {
  Weights average;
  for (const auto& t : steps.front()) average.push_back(t.clone());
  for (size_t s = 1; s < steps.size(); ++s) {
    for (size_t i = 0; i < average.size(); ++i) {
      average[i].copy_(decay * average[i] + (1.0 - decay) * steps[s][i]);
    }
  }
  return average;
}

std::vector<Weights> pick(const std::vector<Weights>& steps, std::initializer_list<size_t> at) {
  std::vector<Weights> out;
  for (size_t s : at) out.push_back(steps.at(s));
  return out;
}

void expect_close(const Weights& got, const Weights& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(torch::allclose(got[i], want[i], 1e-6, 1e-7)) << i << "\n" << got[i] << want[i];
  }
}

void expect_equal(const Weights& got, const Weights& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(torch::equal(got[i], want[i])) << i;
}

TrainerOptions validated_each_epoch(std::shared_ptr<Callback> callback, int64_t epochs = 3) {
  auto o = quiet({.max_epochs = epochs});
  if (callback) o.callbacks = {std::move(callback)};
  o.num_sanity_val_steps = 0;
  return o;
}

TEST(EMAWeightAveraging, ValidatesAndEndsOnTheAverageWhileTrainingFollowsItsOwnWeights) {
  Trained plain;
  Trainer(validated_each_epoch(nullptr)).fit(plain);

  Trained module;
  auto ema = std::make_shared<EMAWeightAveraging>(EMAWeightAveragingOptions{.decay = 0.9});
  Trainer trainer(validated_each_epoch(ema));
  trainer.fit(module);
  ASSERT_EQ(module.after_batch.size(), 12u);
  // Swapping the average in for validation changes nothing of the training itself.
  for (size_t s = 0; s < 12; ++s) expect_equal(module.after_batch[s], plain.after_batch[s]);
  EXPECT_EQ(ema->n_averaged(), 12);
  // Each validation sees the average of the steps so far; the Module ends with all 12's.
  ASSERT_EQ(module.validated.size(), 3u);
  const std::vector<Weights> steps = module.after_batch;
  expect_close(module.validated[0], ema_of(pick(steps, {0, 1, 2, 3}), 0.9));
  expect_close(module.validated[2], ema_of(steps, 0.9));
  expect_close(module.weights(), ema_of(steps, 0.9));
  // The buffers are averaged too; num_batches_tracked (an integer) rounds toward 0 each time.
  const auto tracked = module.weights().back();
  EXPECT_EQ(tracked.scalar_type(), torch::kLong);
  EXPECT_EQ(tracked.item<int64_t>(), ema_of(steps, 0.9).back().item<int64_t>());
  EXPECT_LT(tracked.item<int64_t>(), 12);
  // The average is not the last step's weights.
  EXPECT_GT((module.weights()[0] - steps.back()[0]).abs().max().item<double>(), 1e-4);
}

TEST(WeightAveraging, TheDefaultIsTheEquallyWeightedMeanOfEveryStep) {
  Trained module;
  auto swa = std::make_shared<WeightAveraging>();
  Trainer trainer(validated_each_epoch(swa, 2));
  trainer.fit(module);
  ASSERT_EQ(module.after_batch.size(), 8u);
  Weights mean;
  for (size_t i = 0; i < 8; ++i) {  // the parameters and the float buffers
    std::vector<torch::Tensor> values;
    for (const auto& step : module.after_batch) values.push_back(step[i]);
    mean.push_back(torch::stack(values).mean(0));
  }
  Weights got = module.weights();
  got.pop_back();  // num_batches_tracked
  expect_close(got, mean);
  EXPECT_EQ(swa->n_averaged(), 8);
}

TEST(WeightAveraging, WithoutBuffersTheyFollowTheModulesAtEachUpdate) {
  Trained module;
  auto ema = std::make_shared<EMAWeightAveraging>(
      EMAWeightAveragingOptions{.use_buffers = false, .decay = 0.5, .update_every_n_steps = 3});
  Trainer(validated_each_epoch(ema, 2)).fit(module);
  // Updates after steps 0, 3 and 6 (of 8).
  EXPECT_EQ(ema->n_averaged(), 3);
  const auto expected = ema_of(pick(module.after_batch, {0, 3, 6}), 0.5);
  const auto got = module.weights();
  for (size_t i = 0; i < 6; ++i) {  // parameters: averaged
    EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-6, 1e-7)) << i;
  }
  for (size_t i = 6; i < got.size(); ++i) {  // buffers: step 6's
    EXPECT_TRUE(torch::equal(got[i], module.after_batch[6][i])) << i;
  }
}

TEST(EMAWeightAveraging, UpdatesFromAStepEveryNStepsOrAfterEpochsFromOne) {
  {
    Trained module;
    auto ema = std::make_shared<EMAWeightAveraging>(EMAWeightAveragingOptions{
        .decay = 0.8, .update_every_n_steps = 3, .update_starting_at_step = 4});
    Trainer(validated_each_epoch(ema)).fit(module);
    EXPECT_EQ(ema->n_averaged(), 2);  // step indices 6 and 9
    expect_close(module.weights(), ema_of(pick(module.after_batch, {6, 9}), 0.8));
  }
  {
    Trained module;
    auto ema = std::make_shared<EMAWeightAveraging>(EMAWeightAveragingOptions{
        .decay = 0.8, .update_every_n_steps = 0, .update_starting_at_epoch = 1});
    Trainer(validated_each_epoch(ema)).fit(module);
    EXPECT_EQ(ema->n_averaged(), 2);  // after epochs 1 and 2: the weights of steps 7 and 11
    expect_close(module.weights(), ema_of(pick(module.after_batch, {7, 11}), 0.8));
  }
  {
    // Gradients accumulated over 2 batches: one update per optimizer step, not per batch.
    Trained module;
    auto ema = std::make_shared<EMAWeightAveraging>(EMAWeightAveragingOptions{.decay = 0.7});
    auto o = validated_each_epoch(ema, 2);
    o.accumulate_grad_batches = 2;
    Trainer trainer(o);
    trainer.fit(module);
    EXPECT_EQ(trainer.global_step(), 4);
    EXPECT_EQ(ema->n_averaged(), 4);
    expect_close(module.weights(), ema_of(pick(module.after_batch, {1, 3, 5, 7}), 0.7));
  }
  // The rule itself, as Lightning's should_update.
  EMAWeightAveraging rule({.update_every_n_steps = 2, .update_starting_at_step = 3});
  EXPECT_FALSE(rule.should_update(2, std::nullopt));
  EXPECT_FALSE(rule.should_update(3, std::nullopt));
  EXPECT_TRUE(rule.should_update(4, std::nullopt));
  EXPECT_FALSE(rule.should_update(std::nullopt, 5));
  WeightAveraging every_step;
  EXPECT_TRUE(every_step.should_update(0, std::nullopt));
  EXPECT_FALSE(every_step.should_update(std::nullopt, 0));
}

TEST(EMAWeightAveraging, BadOptionsAreMisconfigurations) {
  EXPECT_THAT([] { EMAWeightAveraging({.decay = 1.5}); },
              ::testing::ThrowsMessage<MisconfigurationError>(
                  "EMAWeightAveraging: decay must be in [0, 1], got 1.5"));
  EXPECT_THAT([] { EMAWeightAveraging({.update_every_n_steps = -2}); },
              ::testing::ThrowsMessage<MisconfigurationError>(
                  "EMAWeightAveraging: update_every_n_steps must be >= 0 (0: never), got -2"));
}

class WeightAveragingCheckpoints : public TempDirTest {
 protected:
  // Fits 3 epochs with a checkpoint at each epoch's end (and, given `averaging`, an EMA at
  // 0.9), from `ckpt` if given.
  Trainer& fit(Trained& module, bool averaging, std::optional<std::string> ckpt = std::nullopt) {
    TrainerOptions o = checkpointing_only({.max_epochs = 3});
    o.logger = false;
    o.callbacks = {std::make_shared<ModelCheckpoint>(
        ModelCheckpointOptions{.dirpath = path("ckpt"), .save_top_k = -1})};
    if (averaging) {
      ema_ = std::make_shared<EMAWeightAveraging>(EMAWeightAveragingOptions{.decay = 0.9});
      o.callbacks.push_back(ema_);
    }
    trainer_ = std::make_unique<Trainer>(o);
    ::testing::internal::CaptureStdout();
    try {
      trainer_->fit(module, nullptr, nullptr, std::move(ckpt));
    } catch (...) {
      stdout_ = ::testing::internal::GetCapturedStdout();
      throw;
    }
    stdout_ = ::testing::internal::GetCapturedStdout();
    return *trainer_;
  }
  std::unique_ptr<Trainer> trainer_;
  std::shared_ptr<EMAWeightAveraging> ema_;
  std::string stdout_;
};

TEST_F(WeightAveragingCheckpoints, SaveTheAverageAsStateDictInLightningsLayoutForPython) {
  Trained module;
  fit(module, /*averaging=*/true);
  const auto steps = module.after_batch;
  const auto average = ema_of(pick(steps, {0, 1, 2, 3}), 0.9);
  // Python sees the average as the weights, the Module's own under current_model_state.
  const std::string text = run_python(
      "import torch\n"
      "c = torch.load('" +
      path("ckpt/epoch=0-step=4.ckpt") +
      "', map_location='cpu')\n"
      "print(' '.join(k for k in sorted(c) if k in ('state_dict', 'current_model_state', "
      "'averaging_state')))\n"
      "print(c['callbacks']['EMAWeightAveraging'], int(c['averaging_state']['n_averaged']))\n"
      "print(' '.join(c['state_dict']) == ' '.join(c['current_model_state']))\n"
      "print(' '.join(f\"{float(c['state_dict'][k].double().sum()):.6f}\" for k in "
      "('first.weight', 'norm.running_mean')))\n"
      "print(' '.join(f\"{float(c['current_model_state'][k].double().sum()):.6f}\" for k in "
      "('first.weight', 'norm.running_mean')))\n");
  auto sums = [](const Weights& w) {
    return fmt::format("{:.6f} {:.6f}", w[0].to(torch::kDouble).sum().item<double>(),
                       w[6].to(torch::kDouble).sum().item<double>());
  };
  EXPECT_EQ(text,
            "averaging_state current_model_state state_dict\n"
            "{'latest_update_step': 4} 4\n"
            "True\n" +
                sums(average) + "\n" + sums(steps[3]) + "\n");
  EXPECT_NE(sums(average), sums(steps[3]));
}

TEST_F(WeightAveragingCheckpoints, AResumedFitEqualsTheUninterruptedOne) {
  Trained straight;
  fit(straight, /*averaging=*/true);
  for (const char* name : {"epoch=0-step=4.ckpt", "epoch=1-step=8.ckpt"}) {
    SCOPED_TRACE(name);
    Trained resumed;
    fit(resumed, /*averaging=*/true, path("ckpt/") + name);
    EXPECT_THAT(stdout_, HasSubstr("Found current_model_state in the checkpoint. This will be "
                                   "used to initialize the model.\n"));
    EXPECT_EQ(ema_->n_averaged(), 12);
    expect_close(resumed.weights(), straight.weights());
    // Training resumed from the Module's own weights, not from the average.
    expect_equal(resumed.after_batch.back(), straight.after_batch.back());
  }
}

TEST_F(WeightAveragingCheckpoints, ACheckpointWithoutTheCallbackStartsBothFromItsWeights) {
  Trained plain;
  fit(plain, /*averaging=*/false);
  Trained resumed;
  ::testing::internal::CaptureStderr();
  fit(resumed, /*averaging=*/true, path("ckpt/epoch=1-step=8.ckpt"));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("The checkpoint was not created with WeightAveraging. Both the current "
                        "and the average model will be initialized with state_dict."));
  // Steps 8 to 11 averaged, the first taken as it is.
  EXPECT_EQ(ema_->n_averaged(), 4);
  expect_close(resumed.weights(), ema_of(resumed.after_batch, 0.9));
}

TEST_F(WeightAveragingCheckpoints, ABrokenAveragingStateIsACheckpointError) {
  Trained module;
  fit(module, /*averaging=*/true);
  run_python(
      "import torch\n"
      "c = torch.load('" +
      path("ckpt/epoch=0-step=4.ckpt") +
      "')\n"
      "del c['averaging_state']['n_averaged']\n"
      "torch.save(c, '" +
      path("no_count.ckpt") +
      "')\n"
      "c = torch.load('" +
      path("ckpt/epoch=0-step=4.ckpt") +
      "')\n"
      "c['current_model_state']['first.weight'] = torch.zeros(2, 2)\n"
      "torch.save(c, '" +
      path("bad_shape.ckpt") + "')\n");
  auto error_of = [&](const std::string& name) {
    Trained resumed;
    try {
      fit(resumed, /*averaging=*/true, path(name));
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("no_count.ckpt"),
            "the state of WeightAveraging has no tensor \"n_averaged\" in \"averaging_state\"");
  EXPECT_EQ(error_of("bad_shape.ckpt"),
            "the checkpoint's current_model_state does not fit the model: size mismatch for "
            "first.weight (checkpoint 2x2, model 3x4)");
}

}  // namespace
}  // namespace fulgur::testing
