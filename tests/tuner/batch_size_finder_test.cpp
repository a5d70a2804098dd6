// Batch-size scaling: Lightning's power and binsearch searches against a step that runs out of
// memory above a size, through the Tuner and the BatchSizeFinder callback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/callbacks/batch_size_finder.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/tuner.h"
#include "temp_dir.h"
#include "trainer/recording.h"
#include "tuner/tunable_module.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;
using testing::TempDirTest;
using testing::TunableModule;
using testing::TunableModuleOptions;

class BatchSizeFinderTest : public TempDirTest {
 protected:
  TrainerOptions options() {
    return testing::quiet({.accelerator = "cpu", .max_epochs = 1, .default_root_dir = dir_.string()});
  }
  // Runs the search, returning what it printed.
  std::string scale(TunableModule& module, BatchSizeFinderOptions o, std::optional<int64_t>& found) {
    Trainer trainer(options());
    ::testing::internal::CaptureStdout();
    try {
      found = Tuner(trainer).scale_batch_size(module, o);
    } catch (...) {
      ::testing::internal::GetCapturedStdout();
      throw;
    }
    return ::testing::internal::GetCapturedStdout();
  }
};

int64_t batch_size_of(const Module& module) { return std::get<int64_t>(module.hparams().at("batch_size")); }

TEST_F(BatchSizeFinderTest, PowerDoublesUntilOutOfMemoryAndKeepsTheLastFit) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 40});
  module.save_hyperparameters({{"batch_size", int64_t{16}}});
  const auto before = module.weights();
  std::optional<int64_t> found;
  const std::string out = scale(module, {}, found);
  EXPECT_EQ(found, 32);
  EXPECT_EQ(batch_size_of(module), 32);
  EXPECT_EQ(out,
            "Batch size 2 succeeded, trying batch size 4\n"
            "Batch size 4 succeeded, trying batch size 8\n"
            "Batch size 8 succeeded, trying batch size 16\n"
            "Batch size 16 succeeded, trying batch size 32\n"
            "Batch size 32 succeeded, trying batch size 64\n"
            "Batch size 64 failed, trying batch size 32\n"
            "Finished batch size finder, will continue with full run using batch size 32\n");
  EXPECT_TRUE(torch::equal(module.weights(), before));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(BatchSizeFinderTest, BinsearchFindsTheExactLimitAndGivesBackTheMargin) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 40});
  module.save_hyperparameters({{"batch_size", int64_t{1}}});
  std::optional<int64_t> found;
  const std::string out = scale(module, {.mode = "binsearch"}, found);
  EXPECT_EQ(found, 38);  // Lightning's default margin of 5%
  EXPECT_EQ(batch_size_of(module), 38);
  EXPECT_THAT(out, HasSubstr("Batch size 64 failed, trying batch size 48\n"
                             "Batch size 48 failed, trying batch size 40\n"
                             "Batch size 40 succeeded, trying batch size 44\n"
                             "Batch size 44 failed, trying batch size 42\n"
                             "Batch size 42 failed, trying batch size 41\n"
                             "Batch size 41 failed, trying batch size 40\n"
                             "Applying margin of 5.0%, reducing batch size from 40 to 38\n"
                             "Finished batch size finder, will continue with full run using batch "
                             "size 38\n"));
  TunableModule exact({.train_samples = 1000, .train_memory_limit = 40});
  exact.save_hyperparameters({{"batch_size", int64_t{1}}});
  scale(exact, {.mode = "binsearch", .margin = 0.0}, found);
  EXPECT_EQ(found, 40);
}

TEST_F(BatchSizeFinderTest, MaxValBoundsTheSizesTried) {
  // Nothing runs out of memory (a CPU rarely says so): the search stops at max_val, which it
  // tries, rather than at the training set's size.
  TunableModule module({.train_samples = 1000});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  std::optional<int64_t> found;
  std::string out = scale(module, {.max_val = 48}, found);
  EXPECT_EQ(found, 48);
  EXPECT_THAT(out, HasSubstr("Batch size 32 succeeded, trying batch size 48\n"
                             "Reached the maximum batch size limit of 48. Stopping search.\n"));
  out = scale(module, {.mode = "binsearch", .margin = 0.0, .max_val = 48}, found);
  EXPECT_EQ(found, 48);
  EXPECT_THROW(scale(module, {.init_val = 64, .max_val = 48}, found), ConfigError);
  EXPECT_THROW(scale(module, {.margin = 1.0}, found), ConfigError);
}

// As Lightning, a trial validates only where the fit would within its steps: not here (an
// epoch is longer than 3 steps), so validation's smaller limit does not bound the search.
TEST_F(BatchSizeFinderTest, TrialsValidateOnlyWhereTheFitWould) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 40, .val_memory_limit = 20});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  std::optional<int64_t> found;
  scale(module, {}, found);
  EXPECT_EQ(found, 32);
  // 40 samples: at 16 an epoch is 3 batches, so the trial's epoch ends and validates (at most
  // steps_per_trial batches), and 16 fails there.
  TunableModule short_epochs({.train_samples = 40, .val_memory_limit = 8});
  short_epochs.save_hyperparameters({{"batch_size", int64_t{2}}});
  scale(short_epochs, {}, found);
  EXPECT_EQ(found, 8);
}

// Lightning's _adjust_batch_size: doubling goes on until a size covers the training set, which
// ends the search at that size (a larger one would run the same single batch).
TEST_F(BatchSizeFinderTest, DoublingStopsAtTheFirstSizeCoveringTheTrainingSet) {
  TunableModule module({.train_samples = 20});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  std::optional<int64_t> found;
  const std::string out = scale(module, {}, found);
  EXPECT_EQ(found, 32);
  EXPECT_THAT(out, HasSubstr("Batch size 16 succeeded, trying batch size 32\n"
                             "The batch size 32 is greater or equal than the length of your "
                             "dataset: 20.\n"));
}

TEST_F(BatchSizeFinderTest, MaxTrialsBoundsTheSearch) {
  TunableModule module({.train_samples = 1000});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  std::optional<int64_t> found;
  scale(module, {.init_val = 4, .max_trials = 3}, found);
  EXPECT_EQ(found, 16);  // 4, 8, 16
  // binsearch counts only the trials that fit, as Lightning: 2, 4, 8 (fails), 6, 5 → 5.
  TunableModule limited({.train_samples = 1000, .train_memory_limit = 5});
  limited.save_hyperparameters({{"batch_size", int64_t{2}}});
  scale(limited, {.mode = "binsearch", .max_trials = 3, .margin = 0.0}, found);
  EXPECT_EQ(found, 5);
}

TEST_F(BatchSizeFinderTest, EachTrialRunsStepsPerTrialBatchesAtItsSize) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 8});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  std::optional<int64_t> found;
  scale(module, {.steps_per_trial = 2}, found);
  // Two training steps at 2, 4 and 8 and no validation (as Lightning: no sanity check inside
  // a search); 16 fails at its first step.
  EXPECT_EQ(module.batch_sizes_seen, (std::vector<int64_t>{2, 2, 4, 4, 8, 8, 16}));
}

// Lightning's Tuner.scale_batch_size(method=...): the evaluation runs are sized on their own
// loaders, with trials of steps_per_trial batches and no training.
TEST_F(BatchSizeFinderTest, TheTunerSizesValidateTestAndPredict) {
  for (const TrainerFn method : {TrainerFn::Validating, TrainerFn::Testing, TrainerFn::Predicting}) {
    TunableModule module({.train_samples = 1000,
                          .val_samples = 1000,
                          .train_memory_limit = 1,
                          .val_memory_limit = method == TrainerFn::Validating ? 40 : 1,
                          .test_memory_limit = method == TrainerFn::Validating ? 1 : 40});
    module.save_hyperparameters({{"batch_size", int64_t{2}}});
    const auto before = module.weights();
    Trainer trainer(options());
    ::testing::internal::CaptureStdout();
    const auto found = Tuner(trainer).scale_batch_size(module, {}, method);
    const std::string out = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(found, 32) << out;
    EXPECT_EQ(batch_size_of(module), 32);
    EXPECT_THAT(out, HasSubstr("Batch size 32 succeeded, trying batch size 64\n"));
    // 3 batches at each of 2, 4, ..., 32, then 64 fails at its first: nothing trained.
    EXPECT_TRUE(module.losses_seen.empty());
    EXPECT_EQ(module.batch_sizes_seen.size(), 5u * 3u + 1u);
    EXPECT_TRUE(torch::equal(module.weights(), before));
  }
  // The evaluation set's size ends the doubling (64 samples: 2, ..., 64).
  TunableModule small({.train_samples = 1000, .val_samples = 64});
  small.save_hyperparameters({{"batch_size", int64_t{2}}});
  Trainer trainer(options());
  ::testing::internal::CaptureStdout();
  const auto found = Tuner(trainer).scale_batch_size(small, {}, TrainerFn::Testing);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(found, 64);
  EXPECT_THAT(out, HasSubstr("The batch size 64 is greater or equal than the length of your "
                             "dataset: 64.\n"));
}

class SizedDataModule : public DataModule {
 public:
  explicit SizedDataModule(TunableModule& module) : module_(module) {
    save_hyperparameters({{"batch_size", int64_t{2}}});
  }
  std::shared_ptr<DataLoader> train_dataloader() override {
    ++requests;
    return module_.train_loader_of(std::get<int64_t>(hparams().at("batch_size")));
  }
  int requests = 0;

 private:
  TunableModule& module_;
};

TEST_F(BatchSizeFinderTest, TheDataModulesHparamIsTunedWhenTheModuleHasNone) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 100});
  SizedDataModule datamodule(module);
  Trainer trainer(options());
  ::testing::internal::CaptureStdout();
  const auto found = Tuner(trainer).scale_batch_size(module, datamodule);
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(found, 64);
  EXPECT_EQ(std::get<int64_t>(datamodule.hparams().at("batch_size")), 64);
  EXPECT_FALSE(module.hparams().contains("batch_size"));
  EXPECT_EQ(datamodule.requests, 7);  // one fresh loader per trial: 2 … 128
}

TEST_F(BatchSizeFinderTest, CallbackTunesAtFitStartAndTheFitUsesTheSize) {
  TunableModule module({.train_samples = 1000, .train_memory_limit = 40});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  auto callback = std::make_shared<BatchSizeFinder>();
  auto o = options();
  o.callbacks = {callback};
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(callback->optimal_batch_size(), 32);
  EXPECT_EQ(trainer.num_training_batches(), 32);  // ceil(1000 / 32)
  EXPECT_EQ(trainer.global_step(), 32);
}

// configure_optimizers' estimated_stepping_batches sets the training loader up before the
// search; the fit still trains at the size found (and the estimate is the old size's, as
// Lightning's).
TEST_F(BatchSizeFinderTest, TheFitUsesTheSizeFoundAlsoAfterEstimatedSteppingBatches) {
  struct Estimating : TunableModule {
    using TunableModule::TunableModule;
    OptimizerConfig configure_optimizers() override {
      estimates.push_back(trainer()->estimated_stepping_batches());
      return TunableModule::configure_optimizers();
    }
    std::vector<int64_t> estimates;
  } module({.train_samples = 1000, .train_memory_limit = 40});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  auto o = options();
  o.callbacks = {std::make_shared<BatchSizeFinder>()};
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  ::testing::internal::GetCapturedStdout();
  ASSERT_FALSE(module.estimates.empty());
  EXPECT_EQ(module.estimates.front(), 500);  // the fit's own (before the trials'), at size 2
  EXPECT_EQ(trainer.num_training_batches(), 32);
  EXPECT_EQ(trainer.global_step(), 32);
}

TEST_F(BatchSizeFinderTest, AFinderFromConfigureCallbacksSearchesOnceWithoutItsOwnCallbacks) {
  // The trials do not ask configure_callbacks (Lightning's search clears the callbacks): the
  // finder does not search again inside its own trials, and the ModelCheckpoint beside it
  // writes nothing during the search.
  struct SelfTuning : TunableModule {
    using TunableModule::TunableModule;
    std::shared_ptr<BatchSizeFinder> finder = std::make_shared<BatchSizeFinder>();
    std::vector<std::shared_ptr<Callback>> configure_callbacks() override {
      return {finder, std::make_shared<ModelCheckpoint>(
                          ModelCheckpointOptions{.every_n_train_steps = 1})};
    }
  };
  SelfTuning module({.train_samples = 1000, .train_memory_limit = 40});
  module.save_hyperparameters({{"batch_size", int64_t{2}}});
  auto o = options();
  o.enable_checkpointing = true;
  o.max_steps = 1;
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(module.finder->optimal_batch_size(), 32);
  size_t finished = 0;
  for (size_t at = 0; (at = out.find("Finished batch size finder", at)) != std::string::npos; ++at) {
    ++finished;
  }
  EXPECT_EQ(finished, 1u);
  // Only the real fit's one step was saved.
  EXPECT_EQ(trainer.checkpoint_callback()->best_model_path(),
            (std::filesystem::path(trainer.default_root_dir()) / "checkpoints" / "epoch=0-step=1.ckpt")
                .string());
}

TEST_F(BatchSizeFinderTest, ClearErrors) {
  TunableModule module({.train_samples = 100, .train_memory_limit = 0});
  std::optional<int64_t> found;
  EXPECT_THAT([&] { scale(module, {}, found); },
              ::testing::ThrowsMessage<MisconfigurationError>(HasSubstr("Field batch_size not found")));

  module.save_hyperparameters({{"batch_size", int64_t{8}}});
  EXPECT_THAT([&] { scale(module, {}, found); },
              ::testing::ThrowsMessage<Error>(HasSubstr("found no batch size that fits in memory")));
  EXPECT_EQ(batch_size_of(module), 8);  // put back

  EXPECT_THAT([] { BatchSizeFinder({.mode = "linear"}); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("use \"power\" or \"binsearch\"")));

  auto o = options();
  o.callbacks = {std::make_shared<BatchSizeFinder>()};
  Trainer direct(o);
  EXPECT_THAT([&] { direct.fit(module, module.train_loader_of(4)); },
              ::testing::ThrowsMessage<MisconfigurationError>(HasSubstr("passed directly to fit()")));
}

class BrokenStep : public TunableModule {
 public:
  using TunableModule::TunableModule;
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    if (batch.data.size(0) > 4) throw std::runtime_error("shape mismatch in layer 3");
    return TunableModule::training_step(batch, idx);
  }
};

TEST_F(BatchSizeFinderTest, OtherErrorsEndTheSearchAndRestoreTheHparam) {
  BrokenStep module({.train_samples = 100});
  module.save_hyperparameters({{"batch_size", int64_t{32}}});
  const auto before = module.weights();
  std::optional<int64_t> found;
  EXPECT_THAT([&] { scale(module, {}, found); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("shape mismatch in layer 3")));
  EXPECT_EQ(batch_size_of(module), 32);
  EXPECT_TRUE(torch::equal(module.weights(), before));
}

}  // namespace
}  // namespace fulgur
