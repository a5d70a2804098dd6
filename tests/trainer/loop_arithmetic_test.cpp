// Loop arithmetic: limits, val_check_interval, check_val_every_n_epoch, accumulation,
// max_steps vs max_epochs, fast_dev_run, sanity steps, min_epochs, overfit_batches, logging steps.
#include <gtest/gtest.h>

#include "fulgur/callbacks/timer.h"
#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

struct Recorded {
  Calls calls;
  int64_t count(const std::string& name) const {
    return std::count(calls.begin(), calls.end(), name);
  }
  // Validation runs after the sanity check.
  int64_t validations() const {
    int64_t n = 0;
    bool sanity = false;
    for (const auto& c : calls) {
      if (c == "Callback.on_sanity_check_start") sanity = true;
      if (c == "Callback.on_sanity_check_end") sanity = false;
      if (c == "Module.on_validation_start" && !sanity) ++n;
    }
    return n;
  }
  int64_t sanity_steps() const {
    int64_t n = 0;
    bool sanity = false;
    for (const auto& c : calls) {
      if (c == "Callback.on_sanity_check_start") sanity = true;
      if (c == "Callback.on_sanity_check_end") sanity = false;
      if (c == "Module.validation_step" && sanity) ++n;
    }
    return n;
  }
};

// Fits a RecordingModule with `train` and `val` samples (batch size 2) under `options`.
std::unique_ptr<Trainer> fit(Recorded& run, TrainerOptions options, int64_t train = 20, int64_t val = 8) {
  options.callbacks.push_back(std::make_shared<RecordingCallback>(run.calls));
  auto trainer = std::make_unique<Trainer>(quiet(std::move(options)));
  RecordingModule module(run.calls, train, val);
  module.with_scheduler = false;
  trainer->fit(module);
  return trainer;
}

TEST(LoopArithmetic, MaxEpochsRunsEveryBatchOfEveryEpoch) {
  Recorded run;
  auto t = fit(run, {.max_epochs = 2});
  EXPECT_EQ(run.count("Module.training_step"), 20);
  EXPECT_EQ(t->global_step(), 20);
  EXPECT_EQ(t->current_epoch(), 2);
  EXPECT_EQ(run.validations(), 2);
  EXPECT_EQ(run.count("Module.on_train_epoch_start"), 2);
}

TEST(LoopArithmetic, MaxStepsStopsMidEpochWithoutMaxEpochs) {
  Recorded run;
  auto t = fit(run, {.max_steps = 7});
  EXPECT_EQ(run.count("Module.training_step"), 7);
  EXPECT_EQ(t->global_step(), 7);
  EXPECT_EQ(t->current_epoch(), 1);  // Lightning counts the interrupted epoch as completed
  EXPECT_EQ(t->max_epochs(), -1);
}

TEST(LoopArithmetic, MaxEpochsWinsOverLargerMaxSteps) {
  Recorded run;
  auto t = fit(run, {.max_epochs = 1, .max_steps = 100});
  EXPECT_EQ(t->global_step(), 10);
}

TEST(LoopArithmetic, DefaultMaxEpochsIs1000WhenMaxStepsUnset) {
  Trainer t(quiet({}));
  EXPECT_EQ(t.max_epochs(), 1000);
}

TEST(LoopArithmetic, LimitTrainBatchesFractionAndCount) {
  Recorded a;
  auto ta = fit(a, {.max_epochs = 2, .limit_train_batches = 0.5});
  EXPECT_EQ(ta->num_training_batches(), 5);
  EXPECT_EQ(ta->global_step(), 10);
  Recorded b;
  auto tb = fit(b, {.max_epochs = 1, .limit_train_batches = 3, .limit_val_batches = 1});
  EXPECT_EQ(tb->global_step(), 3);
  EXPECT_EQ(b.count("Module.validation_step"), 2);  // one sanity batch (capped) + one
}

class StopAtFitStart : public Callback {
 public:
  void on_fit_start(Trainer& t, Module&) override { t.set_should_stop(true); }
};

TEST(LoopArithmetic, LimitValBatchesZeroDisablesValidationAndSanity) {
  Recorded run;
  fit(run, {.max_epochs = 1, .limit_val_batches = 0});
  EXPECT_EQ(run.count("Module.validation_step"), 0);
  EXPECT_EQ(run.count("Callback.on_sanity_check_start"), 0);
}

TEST(LoopArithmetic, NothingToTrainRunsNoTrainStartOrEnd) {
  // Lightning's fit loop skips its run: no batches, no epochs, or a stop asked for at the start.
  for (TrainerOptions options : {TrainerOptions{.max_epochs = 1, .limit_train_batches = 0},
                                 TrainerOptions{.max_epochs = 0},
                                 TrainerOptions{.callbacks = {std::make_shared<StopAtFitStart>()},
                                                .max_epochs = 3}}) {
    Recorded run;
    auto t = fit(run, options);
    EXPECT_EQ(run.count("Callback.on_train_start"), 0);
    EXPECT_EQ(run.count("Callback.on_train_end"), 0);
    EXPECT_EQ(run.count("Callback.on_fit_end"), 1);
    EXPECT_EQ(t->global_step(), 0);
  }
}

TEST(LoopArithmetic, EvaluatingOrPredictingNoBatchesRunsNoHooks) {
  Calls calls;
  RecordingModule module(calls, 4, 4);
  auto callback = std::make_shared<RecordingCallback>(calls);
  Trainer t(quiet({.callbacks = {callback}, .limit_val_batches = 0, .limit_test_batches = 0,
                   .limit_predict_batches = 0}));
  EXPECT_TRUE(t.validate(module, make_loader(4), std::nullopt, false).empty());
  EXPECT_TRUE(t.test(module, make_loader(4), std::nullopt, false).empty());
  EXPECT_TRUE(t.predict(module, make_loader(4)).empty());
  for (const auto& hook : {"Callback.on_validation_start", "Callback.on_test_start",
                           "Callback.on_predict_start", "Module.on_validation_model_eval"}) {
    EXPECT_EQ(std::count(calls.begin(), calls.end(), hook), 0) << hook;
  }
}

TEST(LoopArithmetic, ValCheckIntervalFractionValidatesFourTimesPerEpoch) {
  Recorded run;
  auto t = fit(run, {.max_epochs = 1, .val_check_interval = 0.25, .num_sanity_val_steps = 0},
               /*train=*/16);
  EXPECT_EQ(t->num_training_batches(), 8);
  EXPECT_EQ(run.validations(), 4);
}

TEST(LoopArithmetic, ValCheckIntervalCountValidatesEveryNBatches) {
  Recorded run;
  fit(run, {.max_epochs = 2, .val_check_interval = 3, .num_sanity_val_steps = 0}, /*train=*/16);
  EXPECT_EQ(run.validations(), 4);  // batches 3 and 6 of each 8-batch epoch
}

TEST(LoopArithmetic, ValCheckIntervalCountAcrossEpochsWithoutEpochCheck) {
  Recorded run;
  fit(run,
      {.max_epochs = 3, .val_check_interval = 4, .check_val_every_n_epoch = std::nullopt,
       .num_sanity_val_steps = 0},
      /*train=*/6);  // 3 batches per epoch, 9 in all: validation after global batches 4 and 8
  EXPECT_EQ(run.validations(), 2);
}

TEST(LoopArithmetic, ValCheckIntervalLargerThanEpochIsAnError) {
  Recorded run;
  try {
    fit(run, {.max_epochs = 1, .val_check_interval = 50});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "val_check_interval (50) must be less than or equal to the number of the "
                 "training batches (10). To disable validation set limit_val_batches=0; to "
                 "validate on the total training batches set check_val_every_n_epoch to none");
  }
}

TEST(LoopArithmetic, CheckValEveryNEpoch) {
  Recorded run;
  fit(run, {.max_epochs = 4, .check_val_every_n_epoch = 2});
  EXPECT_EQ(run.validations(), 2);
}

TEST(LoopArithmetic, AccumulationStepsAtWindowEndsAndOnTheLastBatch) {
  Recorded run;
  auto t = fit(run, {.max_epochs = 1, .accumulate_grad_batches = 3});
  EXPECT_EQ(run.count("Module.training_step"), 10);
  EXPECT_EQ(t->global_step(), 4);  // after batches 3, 6, 9 and the last (10)
  EXPECT_EQ(run.count("Module.optimizer_zero_grad"), 4);
  EXPECT_EQ(t->batches_that_stepped(), 4);
}

TEST(LoopArithmetic, FastDevRunTrueRunsOneBatchOfEachWithoutSanityOrLoggers) {
  Recorded run;
  TrainerOptions o{.fast_dev_run = true, .max_epochs = 5};
  o.callbacks.push_back(std::make_shared<RecordingCallback>(run.calls));
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  Trainer t(o);  // logger and checkpointing left on: fast_dev_run suppresses them
  RecordingModule module(run.calls, 20, 8);
  module.with_scheduler = false;
  t.fit(module);
  EXPECT_EQ(run.count("Module.training_step"), 1);
  EXPECT_EQ(run.count("Module.validation_step"), 1);
  EXPECT_EQ(run.sanity_steps(), 0);
  EXPECT_TRUE(t.loggers().empty());
  EXPECT_EQ(t.global_step(), 1);
}

TEST(LoopArithmetic, FastDevRunNRunsNBatches) {
  Recorded run;
  auto t = fit(run, {.fast_dev_run = 3});
  EXPECT_EQ(run.count("Module.training_step"), 3);
  EXPECT_EQ(run.count("Module.validation_step"), 3);
  EXPECT_EQ(t->current_epoch(), 1);
}

TEST(LoopArithmetic, SanityStepsDefaultTwoAllOrNone) {
  Recorded two;
  fit(two, {.max_epochs = 1});
  EXPECT_EQ(two.sanity_steps(), 2);
  Recorded all;
  fit(all, {.max_epochs = 1, .num_sanity_val_steps = -1});
  EXPECT_EQ(all.sanity_steps(), 4);
  Recorded none;
  fit(none, {.max_epochs = 1, .num_sanity_val_steps = 0});
  EXPECT_EQ(none.sanity_steps(), 0);
  EXPECT_EQ(none.count("Callback.on_sanity_check_start"), 0);
}

// Asks to stop after the first batch of every epoch.
class StopAtFirstBatch : public Callback {
 public:
  void on_train_batch_end(Trainer& t, Module&, const torch::Tensor&, Batch&, int64_t) override {
    t.set_should_stop(true);
  }
};

TEST(LoopArithmetic, ShouldStopWaitsForMinEpochs) {
  Recorded run;
  auto t = fit(run, {.callbacks = {std::make_shared<StopAtFirstBatch>()},
                     .max_epochs = 10,
                     .min_epochs = 2,
                     .num_sanity_val_steps = 0});
  // Lightning counts processed epochs: should_stop is only honoured once two are done.
  EXPECT_EQ(t->current_epoch(), 2);
  EXPECT_EQ(run.count("Module.training_step"), 20);
}

TEST(LoopArithmetic, ShouldStopEndsTrainingAndValidatesOnce) {
  Recorded run;
  auto t = fit(run, {.callbacks = {std::make_shared<StopAtFirstBatch>()},
                     .max_epochs = 10,
                     .num_sanity_val_steps = 0});
  EXPECT_EQ(run.count("Module.training_step"), 1);
  EXPECT_EQ(run.validations(), 1);
  EXPECT_EQ(t->current_epoch(), 1);
}

TEST(LoopArithmetic, OverfitBatchesLimitsTrainAndVal) {
  Recorded run;
  auto t = fit(run, {.max_epochs = 2, .overfit_batches = 2, .num_sanity_val_steps = 0});
  EXPECT_EQ(t->num_training_batches(), 2);
  EXPECT_EQ(run.count("Module.training_step"), 4);
  EXPECT_EQ(run.count("Module.validation_step"), 4);
}

TEST(LoopArithmetic, TooSmallFractionIsAnError) {
  Recorded run;
  try {
    fit(run, {.max_epochs = 1, .limit_train_batches = 0.05});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("0.05 * 10 < 1. Please increase the "
                                         "`limit_train_batches` argument. Try at least "
                                         "`limit_train_batches=0.1`"),
              std::string::npos)
        << e.what();
  }
}

class LoggingModule : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto loss = RecordingModule::training_step(batch, idx);
    log("train_loss", loss, {.on_epoch = true});
    return loss;
  }
};

TEST(LoopArithmetic, LogEveryNStepsDecidesWhenStepValuesReachLoggers) {
  Calls calls;
  auto logger = std::make_shared<MemoryLogger>();
  TrainerOptions o{.logger = logger, .max_epochs = 1, .num_sanity_val_steps = 0,
                   .log_every_n_steps = 2};
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  o.enable_checkpointing = false;
  Trainer t(o);
  LoggingModule module(calls, /*train=*/12, /*val=*/4);
  module.with_scheduler = false;
  t.fit(module);
  std::vector<int64_t> step_rows, epoch_rows, val_rows;
  for (const auto& [step, m] : logger->rows) {
    if (m.count("train_loss_step")) step_rows.push_back(step);
    if (m.count("train_loss_epoch")) epoch_rows.push_back(step);
    if (m.count("val_loss")) val_rows.push_back(step);
    EXPECT_EQ(m.at("epoch"), 0.0);
  }
  EXPECT_EQ(step_rows, (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(epoch_rows, (std::vector<int64_t>{5}));
  EXPECT_EQ(val_rows, (std::vector<int64_t>{5}));
  // The epoch value is the batch-size-weighted mean of the step values.
  EXPECT_TRUE(t.callback_metrics().count("train_loss"));
  EXPECT_TRUE(t.callback_metrics().count("val_loss"));
}

}  // namespace
}  // namespace fulgur::testing

namespace fulgur::testing {
namespace {

TEST(LoopArithmetic, ReloadDataloadersEveryNEpochs) {
  Recorded once;
  fit(once, {.max_epochs = 3, .num_sanity_val_steps = 0});
  EXPECT_EQ(once.count("Module.train_dataloader"), 1);
  Recorded every;
  fit(every, {.max_epochs = 3, .num_sanity_val_steps = 0, .reload_dataloaders_every_n_epochs = 1});
  EXPECT_EQ(every.count("Module.train_dataloader"), 3);
  EXPECT_EQ(every.count("Module.val_dataloader"), 3);
  Recorded second;
  fit(second, {.max_epochs = 4, .num_sanity_val_steps = 0, .reload_dataloaders_every_n_epochs = 2});
  EXPECT_EQ(second.count("Module.train_dataloader"), 2);
}

}  // namespace
}  // namespace fulgur::testing

namespace fulgur::testing {
namespace {

// Asks to stop once, at the end of the first epoch, and notes should_stop at each epoch start.
class StopAfterFirstEpoch : public Callback {
 public:
  void on_train_epoch_start(Trainer& t, Module&) override { seen.push_back(t.should_stop()); }
  void on_train_epoch_end(Trainer& t, Module&) override {
    if (t.current_epoch() == 0) t.set_should_stop(true);
  }
  std::vector<bool> seen;
};

TEST(LoopArithmetic, AStopAskedBeforeMinEpochsStaysAskedAndEndsTheFitWhenMet) {
  Recorded run;
  auto stop = std::make_shared<StopAfterFirstEpoch>();
  ::testing::internal::CaptureStdout();
  auto t = fit(run, {.callbacks = {stop}, .max_epochs = 10, .min_epochs = 3,
                     .num_sanity_val_steps = 0});
  const std::string out = ::testing::internal::GetCapturedStdout();
  // Lightning keeps should_stop set: epochs 1 and 2 run with it set, then the fit ends.
  EXPECT_EQ(stop->seen, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(t->current_epoch(), 3);
  EXPECT_TRUE(t->should_stop());
  EXPECT_NE(out.find("Trainer was signaled to stop but the required `min_epochs=3` or "
                     "`min_steps=None` has not been met. Training will continue..."),
            std::string::npos)
      << out;
}

class StopAtTrainStart : public Callback {
 public:
  void on_train_start(Trainer& t, Module&) override { t.set_should_stop(true); }
};

TEST(LoopArithmetic, MinStepsAloneAsksForOneWholeEpoch) {
  Recorded run;
  // Lightning's _parse_loop_limits: min_steps without min_epochs means min_epochs=1.
  auto t = fit(run, {.callbacks = {std::make_shared<StopAtTrainStart>()}, .max_epochs = 5,
                     .min_steps = 1, .num_sanity_val_steps = 0});
  EXPECT_EQ(t->global_step(), 10);
  EXPECT_EQ(t->current_epoch(), 1);
}

TEST(LoopArithmetic, AnEpochLimitOf1000UnlessMaxTimeOrMaxStepsEndsTheFit) {
  EXPECT_EQ(Trainer(quiet({})).max_epochs(), 1000);
  EXPECT_EQ(Trainer(quiet({.max_steps = 5})).max_epochs(), -1);
  EXPECT_EQ(Trainer(quiet({.max_time = "00:00:00:30"})).max_epochs(), -1);
  EXPECT_EQ(Trainer(quiet({.callbacks = {std::make_shared<Timer>(std::chrono::seconds(30))}}))
                .max_epochs(),
            -1);
  EXPECT_EQ(Trainer(quiet({.max_epochs = 3, .max_time = "00:00:00:30"})).max_epochs(), 3);
}

TEST(LoopArithmetic, AFractionalValCheckIntervalNeedsCheckValEveryNEpoch) {
  try {
    Trainer(quiet({.val_check_interval = 0.5, .check_val_every_n_epoch = std::nullopt}));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "`val_check_interval` should be an integer when `check_val_every_n_epoch=None`, "
                 "found 0.5");
  }
  // 1.0, the default, is Lightning's None: validation at each epoch's end.
  EXPECT_NO_THROW(Trainer(quiet({.check_val_every_n_epoch = std::nullopt})));
}

}  // namespace
}  // namespace fulgur::testing
