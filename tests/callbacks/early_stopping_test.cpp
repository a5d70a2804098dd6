// EarlyStopping: patience, min_delta, mode, stopping and divergence thresholds, non-finite
// values, a missing metric (strict or not), verbose messages, checkpoint state, and a resumed
// fit that keeps counting where the first one stopped.
#include "fulgur/callbacks/early_stopping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "temp_dir.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Logs `val_score` from a fixed schedule, one value per epoch, and counts its epochs.
class ScheduledScore : public RecordingModule {
 public:
  ScheduledScore(Calls& calls, std::vector<double> scores)
      : RecordingModule(calls, 4, 2), scores_(std::move(scores)) {
    with_scheduler = false;
  }
  void validation_step(Batch&, int64_t) override {
    log("val_score", scores_.at(static_cast<size_t>(current_epoch())));
  }
  void on_train_epoch_end() override { ++epochs_run; }
  int epochs_run = 0;

 private:
  std::vector<double> scores_;
};

struct Run {
  int epochs_run = 0;
  int64_t stopped_epoch = 0;
  int64_t wait_count = 0;
  double best_score = 0;
};

Run fit_with(EarlyStoppingOptions options, std::vector<double> scores, int64_t max_epochs = 10) {
  Calls calls;
  ScheduledScore module(calls, std::move(scores));
  auto early_stopping = std::make_shared<EarlyStopping>(std::move(options));
  Trainer trainer({.logger = false,
                   .callbacks = {early_stopping},
                   .max_epochs = max_epochs,
                   .num_sanity_val_steps = 0,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module);
  return {module.epochs_run, early_stopping->stopped_epoch(), early_stopping->wait_count(),
          early_stopping->best_score()};
}

TEST(EarlyStopping, StopsAfterPatienceChecksWithoutImprovement) {
  const auto run = fit_with({.monitor = "val_score", .patience = 2},
                            {1.0, 0.5, 0.6, 0.7, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
  EXPECT_EQ(run.epochs_run, 4);
  EXPECT_EQ(run.stopped_epoch, 3);
  EXPECT_EQ(run.wait_count, 2);
  EXPECT_DOUBLE_EQ(run.best_score, 0.5);
}

TEST(EarlyStopping, ImprovementsSmallerThanMinDeltaDoNotCount) {
  const auto run = fit_with({.monitor = "val_score", .min_delta = 0.1, .patience = 2},
                            {1.0, 0.95, 0.91, 0.5, 0.5, 0.5});
  EXPECT_EQ(run.epochs_run, 3);
  EXPECT_DOUBLE_EQ(run.best_score, 1.0);
}

TEST(EarlyStopping, NegativeMinDeltaCountsASlightWorseningAsImprovement) {
  // Lightning: min_delta *= -1 in min mode, improvement = current - min_delta < best, so with
  // -0.1 every score below best + 0.1 improves (also the repeated 0.5s): all 6 epochs run.
  const auto run = fit_with({.monitor = "val_score", .min_delta = -0.1, .patience = 2},
                            {1.0, 0.95, 0.91, 0.5, 0.5, 0.5}, /*max_epochs=*/6);
  EXPECT_EQ(run.epochs_run, 6);
  EXPECT_EQ(run.wait_count, 0);
  EXPECT_DOUBLE_EQ(run.best_score, 0.5);
  const auto worse = fit_with({.monitor = "val_score", .min_delta = -0.1, .patience = 1},
                              {1.0, 1.05, 1.2, 1.2}, /*max_epochs=*/4);
  EXPECT_EQ(worse.epochs_run, 3);
  EXPECT_DOUBLE_EQ(worse.best_score, 1.05);
}

TEST(EarlyStopping, StoppingReasonAndMessageAreKeptAndSaved) {
  Calls calls;
  ScheduledScore module(calls, {1.0, 0.5, 0.6, 0.7, 0.8});
  auto early_stopping =
      std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "val_score", .patience = 2});
  EXPECT_EQ(early_stopping->stopping_reason(), EarlyStoppingReason::NOT_STOPPED);
  EXPECT_FALSE(early_stopping->stopping_reason_message().has_value());
  EXPECT_TRUE(early_stopping->state_dict().toGenericDict().at("stopping_reason_message").isNone());
  Trainer trainer({.logger = false,
                   .callbacks = {early_stopping},
                   .max_epochs = 5,
                   .num_sanity_val_steps = 0,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module);
  const std::string message =
      "Monitored metric val_score did not improve in the last 2 records. Best score: 0.500. "
      "Signaling Trainer to stop.";
  EXPECT_EQ(early_stopping->stopping_reason(), EarlyStoppingReason::PATIENCE_EXHAUSTED);
  EXPECT_EQ(early_stopping->stopping_reason_message(), message);
  auto state = early_stopping->state_dict().toGenericDict();
  EXPECT_EQ(state.at("stopping_reason").toInt(), 3);  // Lightning's PATIENCE_EXHAUSTED
  EXPECT_EQ(state.at("stopping_reason_message").toStringRef(), message);

  EarlyStopping restored({.monitor = "val_score"});
  state.insert_or_assign("stopping_reason", int64_t{1});
  restored.load_state_dict(state);
  EXPECT_EQ(restored.stopping_reason(), EarlyStoppingReason::STOPPING_THRESHOLD);
  EXPECT_EQ(restored.stopping_reason_message(), message);
}

TEST(EarlyStopping, ModeMaxAndTheStoppingThreshold) {
  const auto run = fit_with({.monitor = "val_score", .mode = "max", .stopping_threshold = 0.9},
                            {0.5, 0.8, 0.95, 0.99, 0.99});
  EXPECT_EQ(run.epochs_run, 3);
  EXPECT_EQ(run.stopped_epoch, 2);
  EXPECT_DOUBLE_EQ(run.best_score, 0.8);
}

TEST(EarlyStopping, TheDivergenceThresholdStopsAWorseningRun) {
  const auto run = fit_with({.monitor = "val_score", .patience = 100,
                             .divergence_threshold = 10.0},
                            {1.0, 5.0, 20.0, 1.0});
  EXPECT_EQ(run.epochs_run, 3);
  EXPECT_EQ(run.stopped_epoch, 2);
}

TEST(EarlyStopping, ANonFiniteValueStopsUnlessCheckFiniteIsOff) {
  EXPECT_EQ(fit_with({.monitor = "val_score", .patience = 5}, {1.0, kNaN, 0.5, 0.4}).epochs_run,
            2);
  EXPECT_EQ(fit_with({.monitor = "val_score", .patience = 5, .check_finite = false},
                     {1.0, kNaN, 0.5, 0.4}, 4)
                .epochs_run,
            4);
}

TEST(EarlyStopping, AMissingMetricIsAnErrorWhenStrict) {
  try {
    fit_with({.monitor = "val_acc"}, {1.0, 1.0});
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "EarlyStopping is conditioned on metric `val_acc`, which is not available. Log "
                 "it, or monitor one of: `val_score`");
  }
  EXPECT_EQ(fit_with({.monitor = "val_acc", .strict = false}, {1.0, 1.0, 1.0}, 3).epochs_run, 3);
}

TEST(EarlyStopping, VerboseSaysWhatHappened) {
  ::testing::internal::CaptureStdout();
  fit_with({.monitor = "val_score", .patience = 1, .verbose = true}, {1.0, 0.25, 0.5});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("Metric val_score improved. New best score: 1.000\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("Metric val_score improved by 0.750 >= min_delta = 0. New best score: "
                     "0.250\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Monitored metric val_score did not improve in the last 1 records. Best "
                     "score: 0.250. Signaling Trainer to stop.\n"),
            std::string::npos)
      << out;
}

TEST(EarlyStopping, BadOptionsAreConfigErrors) {
  EXPECT_THROW(EarlyStopping({}), ConfigError);
  try {
    EarlyStopping({.monitor = "val_score", .mode = "lowest"});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "EarlyStopping(mode=\"lowest\") is not valid; choose \"min\" or \"max\"");
  }
  EXPECT_THROW(EarlyStopping({.monitor = "val_score", .patience = -1}), ConfigError);
}

TEST(EarlyStopping, StateKeyAndStateDictAreLightnings) {
  EarlyStopping early_stopping({.monitor = "val_loss", .patience = 4});
  EXPECT_EQ(early_stopping.state_key(), "EarlyStopping{'monitor': 'val_loss', 'mode': 'min'}");
  const auto state = early_stopping.state_dict().toGenericDict();
  EXPECT_EQ(state.at("wait_count").toInt(), 0);
  EXPECT_EQ(state.at("stopped_epoch").toInt(), 0);
  EXPECT_TRUE(std::isinf(state.at("best_score").toDouble()));
  EXPECT_EQ(state.at("patience").toInt(), 4);

  auto saved = make_checkpoint_dict();
  saved.insert("wait_count", int64_t{2});
  saved.insert("stopped_epoch", int64_t{0});
  saved.insert("best_score", torch::tensor(0.25, torch::kFloat64));  // as Lightning saves it
  saved.insert("patience", int64_t{5});
  early_stopping.load_state_dict(saved);
  EXPECT_EQ(early_stopping.wait_count(), 2);
  EXPECT_DOUBLE_EQ(early_stopping.best_score(), 0.25);
  EXPECT_EQ(early_stopping.options().patience, 5);

  EXPECT_EQ(saved.erase("patience"), 1u);
  try {
    early_stopping.load_state_dict(saved);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(), "the EarlyStopping state in the checkpoint has no \"patience\"");
  }
  EXPECT_EQ(early_stopping.wait_count(), 2) << "a failed load changes nothing";
  EXPECT_THROW(early_stopping.load_state_dict(c10::IValue(3)), CheckpointError);
}

class EarlyStoppingResume : public TempDirTest {};

TEST_F(EarlyStoppingResume, AResumedFitKeepsCountingFromTheCheckpoint) {
  // Scores stop improving after epoch 0; patience 3 stops the run at epoch 3, whether it runs
  // in one go or resumes after epoch 1 from last.ckpt.
  const std::vector<double> scores = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0};
  auto fit = [&](int64_t max_epochs, std::optional<std::string> ckpt_path) {
    Calls calls;
    ScheduledScore module(calls, scores);
    auto early_stopping =
        std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "val_score", .patience = 3});
    auto checkpoint = std::make_shared<ModelCheckpoint>(
        ModelCheckpointOptions{.dirpath = path("ckpts"), .save_last = true});
    Trainer trainer({.logger = false,
                     .callbacks = {early_stopping, checkpoint},
                     .max_epochs = max_epochs,
                     .num_sanity_val_steps = 0,
                     .enable_progress_bar = false,
                     .enable_model_summary = false});
    trainer.fit(module, nullptr, nullptr, ckpt_path);
    return std::pair{module.epochs_run, early_stopping->stopped_epoch()};
  };
  EXPECT_EQ(fit(2, std::nullopt), (std::pair{2, int64_t{0}}));
  // Epochs 2 and 3 run after the resume; without the saved wait_count it would run to epoch 4.
  EXPECT_EQ(fit(8, "last"), (std::pair{2, int64_t{3}}));
}

}  // namespace
}  // namespace fulgur::testing
