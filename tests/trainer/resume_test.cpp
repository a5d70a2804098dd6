// fit(ckpt_path): a fit stopped and resumed from its checkpoint equals the uninterrupted fit,
// bitwise (weights and every training loss), mid-epoch and at epoch boundaries, with dropout,
// Adam, a step-interval LR scheduler, shuffled data and gradient accumulation. Plus the
// checkpoint's resume errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/io/async_checkpoint_io.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/module.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A small regression net whose training draws random numbers (dropout) and whose validation
// draws some too, so any slip in the restored generator states shows in the losses.
class NoisyRegression : public Module {
 public:
  explicit NoisyRegression(uint64_t init_seed, bool adam = true)
      : Module("NoisyRegression"), adam_(adam) {
    torch::manual_seed(init_seed);
    hidden_ = register_module("hidden", torch::nn::Linear(4, 16));
    dropout_ = register_module("dropout", torch::nn::Dropout(0.25));
    out_ = register_module("out", torch::nn::Linear(16, 1));
  }
  std::vector<float> losses;
  int sanity_steps = 0;
  // Raises SIGTERM in this training step (0-based), as a job scheduler would send it.
  int64_t sigterm_at_step = -1;

  torch::Tensor forward(const torch::Tensor& x) {
    return out_->forward(dropout_->forward(torch::relu(hidden_->forward(x))));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    if (static_cast<int64_t>(losses.size()) == sigterm_at_step) std::raise(SIGTERM);
    auto loss = torch::mse_loss(forward(batch.data), batch.target);
    losses.push_back(loss.item<float>());
    log("train_loss", loss);
    return loss;
  }
  void validation_step(Batch& batch, int64_t) override {
    if (trainer()->sanity_checking()) ++sanity_steps;
    log("val_loss", torch::mse_loss(forward(batch.data), batch.target));
    torch::rand({3});  // validation must not disturb training's random stream
  }
  OptimizerConfig configure_optimizers() override {
    std::shared_ptr<torch::optim::Optimizer> opt;
    if (adam_) {
      opt = std::make_shared<torch::optim::Adam>(parameters(), torch::optim::AdamOptions(1e-2));
    } else {
      opt = std::make_shared<torch::optim::SGD>(parameters(),
                                                torch::optim::SGDOptions(1e-2).momentum(0.9));
    }
    auto scheduler = std::make_shared<StepLR>(*opt, 4, 0.5);
    return OptimizerConfig({opt}, {SchedulerConfig{.scheduler = scheduler, .interval = "step"}});
  }
  std::vector<torch::Tensor> weights() const {
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters()) out.push_back(p.detach().clone());
    return out;
  }

 private:
  bool adam_;
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};

std::shared_ptr<DataLoader> loader(int64_t n, bool shuffle) {
  torch::manual_seed(1234);
  auto x = torch::randn({n, 4});
  auto y = (x * torch::tensor({0.5, -1.0, 2.0, 0.25})).sum(1, true);
  return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, y),
                                      DataLoaderOptions{.batch_size = 4, .shuffle = shuffle, .seed = 7});
}

class ResumeTest : public testing::TempDirTest {
 protected:

  TrainerOptions options(TrainerOptions o) const {
    o.enable_progress_bar = false;
    o.enable_model_summary = false;
    o.logger = false;
    o.default_root_dir = dir_.string();
    o.num_sanity_val_steps = 2;
    return o;
  }
  std::shared_ptr<ModelCheckpoint> every(int64_t steps) const {
    return std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
        .dirpath = (dir_ / "ckpt").string(), .every_n_train_steps = steps});
  }
  // Fits a fresh module (initialised from `init_seed`) and returns it.
  std::unique_ptr<NoisyRegression> fit(TrainerOptions o, uint64_t init_seed,
                                       std::optional<std::string> ckpt_path = std::nullopt,
                                       bool adam = true) {
    auto module = std::make_unique<NoisyRegression>(init_seed, adam);
    Trainer trainer(options(std::move(o)));
    trainer.fit(*module, loader(40, true), loader(8, false), ckpt_path);
    global_step_ = trainer.global_step();
    return module;
  }
  std::string file(const std::string& name) const { return (dir_ / "ckpt" / name).string(); }

  static void expect_same_fit(const NoisyRegression& straight, const NoisyRegression& first,
                              const NoisyRegression& resumed) {
    std::vector<float> joined = first.losses;
    joined.insert(joined.end(), resumed.losses.begin(), resumed.losses.end());
    ASSERT_EQ(joined.size(), straight.losses.size());
    for (size_t i = 0; i < joined.size(); ++i) {
      EXPECT_EQ(joined[i], straight.losses[i]) << "loss of step " << i;  // bitwise
    }
    const auto a = straight.weights(), b = resumed.weights();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "parameter " << i;
  }

  int64_t global_step_ = 0;
};

TEST_F(ResumeTest, MidEpochResumeEqualsTheUninterruptedFitBitwise) {
  auto straight = fit({.max_steps = 25, .enable_checkpointing = false}, 1);
  // Stops at step 13 = batch 3 of epoch 1; the checkpoint is written from on_train_batch_end.
  auto first = fit({.callbacks = {every(13)}, .max_steps = 13}, 1);
  ASSERT_TRUE(fs::exists(file("epoch=1-step=13.ckpt")));
  auto resumed = fit({.callbacks = {every(13)}, .max_steps = 25}, 99, file("epoch=1-step=13.ckpt"));
  EXPECT_EQ(resumed->losses.size(), 12u);
  EXPECT_EQ(global_step_, 25);
  EXPECT_EQ(resumed->sanity_steps, 0) << "no sanity check on restart";
  EXPECT_EQ(straight->sanity_steps, 2);
  expect_same_fit(*straight, *first, *resumed);
}

TEST_F(ResumeTest, EpochBoundaryResumeEqualsTheUninterruptedFitBitwise) {
  auto straight = fit({.max_steps = 25, .enable_checkpointing = false}, 1);
  // The default ModelCheckpoint saves after the validation at the end of epoch 0.
  auto first = fit({.callbacks = {std::make_shared<ModelCheckpoint>(
                        ModelCheckpointOptions{.dirpath = (dir_ / "ckpt").string()})},
                    .max_epochs = 1},
                   1);
  ASSERT_TRUE(fs::exists(file("epoch=0-step=10.ckpt")));
  auto resumed = fit({.max_steps = 25, .enable_checkpointing = false}, 99,
                     file("epoch=0-step=10.ckpt"));
  EXPECT_EQ(resumed->losses.size(), 15u);
  expect_same_fit(*straight, *first, *resumed);
}

TEST_F(ResumeTest, ResumeWithAccumulationAndSgdMomentumIsExact) {
  auto straight = fit({.max_steps = 9, .enable_checkpointing = false, .accumulate_grad_batches = 2},
                      1, std::nullopt, /*adam=*/false);
  // Step 6 ends batch 12 = batch 2 of epoch 1.
  auto first = fit({.callbacks = {every(6)}, .max_steps = 6, .accumulate_grad_batches = 2}, 1,
                   std::nullopt, false);
  auto resumed = fit({.max_steps = 9, .enable_checkpointing = false, .accumulate_grad_batches = 2},
                     99, file("epoch=1-step=6.ckpt"), false);
  EXPECT_EQ(first->losses.size(), 12u);
  EXPECT_EQ(resumed->losses.size(), 6u);
  expect_same_fit(*straight, *first, *resumed);
}

TEST_F(ResumeTest, AsyncCheckpointsResumeTheSame) {
  auto straight = fit({.max_steps = 25, .enable_checkpointing = false}, 1);
  auto first = fit({.plugins = {std::make_shared<AsyncCheckpointIO>()},
                    .callbacks = {every(13)},
                    .max_steps = 13},
                   1);
  // fit's teardown waited for the background writer.
  ASSERT_TRUE(fs::exists(file("epoch=1-step=13.ckpt")));
  auto resumed = fit({.plugins = {std::make_shared<AsyncCheckpointIO>()}, .max_steps = 25}, 99,
                     file("epoch=1-step=13.ckpt"));
  expect_same_fit(*straight, *first, *resumed);
}

TEST_F(ResumeTest, LastFindsTheLastCheckpointAndWithoutOneStartsFresh) {
  auto save_last = [&] {
    return std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
        .dirpath = (dir_ / "ckpt").string(), .save_last = true, .every_n_train_steps = 5});
  };
  // Nothing saved yet: a warning, and training from the start.
  auto fresh = fit({.callbacks = {save_last()}, .max_steps = 7}, 1, std::string("last"));
  EXPECT_EQ(fresh->losses.size(), 7u);
  ASSERT_TRUE(fs::exists(file("last.ckpt")));
  // last.ckpt was written with the step save at step 5 only: as Lightning 2.6, an epoch's end
  // (step 7) writes `last` only when a checkpoint was saved at that step. So steps 6-8 run.
  auto resumed = fit({.callbacks = {save_last()}, .max_steps = 8}, 99, std::string("last"));
  EXPECT_EQ(resumed->losses.size(), 3u);
  EXPECT_EQ(global_step_, 8);
}

TEST_F(ResumeTest, WeightsOnlyCheckpointCannotResume) {
  fit({.callbacks = {std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
           .dirpath = (dir_ / "ckpt").string(), .save_weights_only = true,
           .every_n_train_steps = 2})},
       .max_steps = 2},
      1);
  try {
    fit({.max_steps = 4}, 1, file("epoch=0-step=2.ckpt"));
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              file("epoch=0-step=2.ckpt") +
                  " holds the model only (saved with save_weights_only=true), so training cannot "
                  "resume from it; use it with validate/test/predict, or resume from a full "
                  "checkpoint");
  }
}

TEST_F(ResumeTest, AnotherOptimizerKindIsRefusedBeforeTheModelChanges) {
  fit({.callbacks = {every(2)}, .max_steps = 2}, 1, std::nullopt, /*adam=*/false);
  NoisyRegression module(99, /*adam=*/true);
  const auto before = module.weights();
  Trainer trainer(options({.max_steps = 4, .enable_checkpointing = false}));
  try {
    trainer.fit(module, loader(40, true), loader(8, false), file("epoch=0-step=2.ckpt"));
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              file("epoch=0-step=2.ckpt") +
                  ": optimizer state, param group 0 (Adam): no \"betas\"; the state was saved "
                  "from another kind of optimizer");
  }
  const auto after = module.weights();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(before[i], after[i]));
}

TEST_F(ResumeTest, ChangedDataIsRefusedWithTheReason) {
  fit({.callbacks = {every(13)}, .max_steps = 13}, 1);
  NoisyRegression other(99);
  Trainer trainer(options({.max_steps = 20, .enable_checkpointing = false}));
  // 8 samples make 2 batches per epoch; the checkpoint stands after batch 3 of epoch 1.
  EXPECT_THAT([&] { trainer.fit(other, loader(8, true), loader(8, false), file("epoch=1-step=13.ckpt")); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
                  "was saved after batch 3 of epoch 1, but an epoch now has 2 training batches")));
}

TEST_F(ResumeTest, SigtermFinishesTheStepSavesAndResumesExactly) {
  auto straight = fit({.max_steps = 25, .enable_checkpointing = false}, 1);
  NoisyRegression first(1);
  first.sigterm_at_step = 7;
  Trainer trainer(options({.max_steps = 25, .enable_checkpointing = false}));
  const std::string hpc = (dir_ / "hpc_ckpt_1.ckpt").string();
  try {
    trainer.fit(first, loader(40, true), loader(8, false));
    FAIL() << "expected Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_EQ(e.checkpoint_path(), hpc);
    EXPECT_EQ(std::string(e.what()), "received SIGTERM: stopped after step 8 and saved " + hpc +
                                         "; resume with ckpt_path=\"last\" (or the file)");
  }
  EXPECT_EQ(trainer.status(), TrainerStatus::Interrupted);
  EXPECT_EQ(first.losses.size(), 8u) << "the step in progress finishes";
  struct sigaction current {};
  ::sigaction(SIGTERM, nullptr, &current);
  EXPECT_EQ(current.sa_handler, SIG_DFL) << "the previous handler is back after fit";

  auto resumed = fit({.max_steps = 25, .enable_checkpointing = false}, 99, std::string("hpc"));
  expect_same_fit(*straight, first, *resumed);
}

TEST_F(ResumeTest, CheckpointHoldsLightningsResumeKeys) {
  fit({.callbacks = {every(13)}, .max_steps = 13}, 1);
  auto checkpoint = TorchCheckpointIO().load_checkpoint(file("epoch=1-step=13.ckpt"));
  for (const char* key : {"epoch", "global_step", "pytorch-lightning_version", "fulgur_version",
                          "state_dict", "optimizer_states", "lr_schedulers", "loops", "callbacks",
                          "rng_states"}) {
    EXPECT_TRUE(checkpoint.contains(key)) << key;
  }
  // A Module without hyperparameters: Lightning leaves their keys out.
  EXPECT_FALSE(checkpoint.contains("hyper_parameters"));
  EXPECT_FALSE(checkpoint.contains("hparams_name"));
  EXPECT_EQ(checkpoint.at("global_step").toInt(), 13);
  const auto fit_loop = checkpoint.at("loops").toGenericDict().at("fit_loop").toGenericDict();
  const auto loader_state = fit_loop.at("state_dict")
                                .toGenericDict()
                                .at("combined_loader")
                                .toList()
                                .get(0)
                                .toGenericDict();
  EXPECT_EQ(loader_state.at("epoch").toInt(), 1);
  EXPECT_EQ(loader_state.at("position").toInt(), 3);
  const auto scheduler = checkpoint.at("lr_schedulers").toList().get(0).toGenericDict();
  EXPECT_EQ(scheduler.at("last_epoch").toInt(), 13);
  EXPECT_EQ(scheduler.at("step_size").toInt(), 4);
  const auto optimizer = checkpoint.at("optimizer_states").toList().get(0).toGenericDict();
  const auto adam_state = optimizer.at("state").toGenericDict().at(0).toGenericDict();
  EXPECT_EQ(adam_state.at("step").toTensor().item<float>(), 13.0f);
  EXPECT_EQ(checkpoint.at("rng_states").toGenericDict().at("torch").toTensor().numel(), 5056);
}

// Lightning's Trainer.validate/test/predict(ckpt_path=...) index loops["validate_loop"] etc.
TEST_F(ResumeTest, CheckpointHoldsLightningsEvaluationLoops) {
  fit({.callbacks = {every(13)}, .max_steps = 13}, 1);
  const auto loops = TorchCheckpointIO()
                         .load_checkpoint(file("epoch=1-step=13.ckpt"))
                         .at("loops")
                         .toGenericDict();
  EXPECT_EQ(loops.size(), 4u);
  for (const char* name : {"validate_loop", "test_loop", "predict_loop"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(loops.contains(name));
    const auto stage = loops.at(name).toGenericDict();
    EXPECT_EQ(stage.at("state_dict").toGenericDict().size(), 0u);
    const auto progress = stage.at("batch_progress").toGenericDict();
    for (const char* part : {"total", "current"}) {
      const auto counters = progress.at(part).toGenericDict();
      for (const char* counter : {"ready", "started", "processed", "completed"}) {
        EXPECT_EQ(counters.at(counter).toInt(), 0) << part << "." << counter;
      }
    }
    const bool batch_progress = std::string(name) != "predict_loop";
    EXPECT_EQ(progress.contains("is_last_batch"), batch_progress);
    if (batch_progress) {
      EXPECT_FALSE(progress.at("is_last_batch").toBool());
    }
  }
}

}  // namespace
}  // namespace fulgur
