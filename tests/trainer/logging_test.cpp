// Module::log semantics: per-hook defaults, key names, weighted epoch means, reduce_fx, and
// where logging is not allowed.
#include <gtest/gtest.h>

#include "fulgur/connectors/logger_connector.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// Logs known values so the reductions can be checked exactly.
class LoggingModule : public RecordingModule {
 public:
  explicit LoggingModule(Calls& calls) : RecordingModule(calls, /*train=*/6, /*val=*/5) {
    with_scheduler = false;
  }
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto loss = RecordingModule::training_step(batch, idx);
    log("step_only", static_cast<double>(idx));                 // default: on_step
    log("both", static_cast<double>(idx), {.on_epoch = true});  // step and epoch
    log("total", 1.0, {.on_step = false, .on_epoch = true, .reduce_fx = ReduceFx::Sum});
    log("biggest", static_cast<double>(10 - idx),
        {.on_step = false, .on_epoch = true, .reduce_fx = ReduceFx::Max});
    return loss;
  }
  void validation_step(Batch& batch, int64_t idx) override {
    // Batches of 2, 2 and 1 samples: the epoch value is weighted by batch size.
    log("val_metric", static_cast<double>(idx), {.prog_bar = true});
    (void)batch;
  }
  void on_train_epoch_end() override { log("from_epoch_end", 7.0); }
};

// Options with nothing printed or written but what reaches `logger`.
TrainerOptions logged_to(const std::shared_ptr<MemoryLogger>& logger, TrainerOptions o) {
  o = quiet(std::move(o));
  o.logger = logger;
  return o;
}

TEST(Logging, KeysAndEpochReductionsFollowLightning) {
  Calls calls;
  LoggingModule module(calls);
  Trainer t(quiet({.max_epochs = 1, .num_sanity_val_steps = 0}));
  t.fit(module);
  const auto& m = t.callback_metrics();
  EXPECT_DOUBLE_EQ(m.at("step_only"), 2.0);     // last step value
  EXPECT_DOUBLE_EQ(m.at("both_step"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("both_epoch"), 1.0);    // mean of 0, 1, 2
  EXPECT_DOUBLE_EQ(m.at("both"), 1.0);          // the epoch value once the epoch ended
  EXPECT_DOUBLE_EQ(m.at("total"), 3.0);
  EXPECT_DOUBLE_EQ(m.at("biggest"), 10.0);
  EXPECT_DOUBLE_EQ(m.at("from_epoch_end"), 7.0);
  // (0·2 + 1·2 + 2·1) / 5
  EXPECT_DOUBLE_EQ(m.at("val_metric"), 0.8);
  EXPECT_DOUBLE_EQ(t.progress_bar_metrics().at("val_metric"), 0.8);
  EXPECT_EQ(t.progress_bar_metrics().count("both"), 0u);
}

TEST(Logging, ValidateReturnsTheEpochMetrics) {
  Calls calls;
  LoggingModule module(calls);
  Trainer t(quiet({}));
  auto metrics = t.validate(module, nullptr, std::nullopt, /*verbose=*/false);
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(metrics.at("val_metric"), 0.8);
}

class LogsInSetup : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  void on_fit_start() override { log("nope", 1.0); }
};

TEST(Logging, LoggingWhereLightningForbidsItIsAnError) {
  Calls calls;
  LogsInSetup module(calls);
  Trainer t(quiet({.max_epochs = 1}));
  try {
    t.fit(module);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "You can't `log(\"nope\")` inside `on_fit_start`: logging is allowed in the "
                 "training, validation and test steps and in their batch, epoch and start hooks");
  }
  EXPECT_EQ(t.status(), TrainerStatus::Interrupted);
}

class LogsOnStepInEpochHook : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  void on_train_epoch_end() override { log("x", 1.0, {.on_step = true}); }
};

TEST(Logging, OnStepInAnEpochHookIsAnError) {
  Calls calls;
  LogsOnStepInEpochHook module(calls);
  Trainer t(quiet({.max_epochs = 1, .num_sanity_val_steps = 0}));
  EXPECT_THROW(t.fit(module), MisconfigurationError);
}

TEST(Logging, SanityCheckValuesAreDiscarded) {
  Calls calls;
  LoggingModule module(calls);
  // Validation only every second epoch: in a one-epoch fit only the sanity check validates.
  Trainer t(quiet({.max_epochs = 1, .check_val_every_n_epoch = 2, .num_sanity_val_steps = 2}));
  t.fit(module);
  EXPECT_EQ(t.callback_metrics().count("val_metric"), 0u);
}

// Logged tensors stay on the device: they are read to the host (a device sync on CUDA) when a
// logger writes, at epoch ends or when someone reads a metric map, never once per step.
class LogsEveryStep : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto loss = RecordingModule::training_step(batch, idx);
    log("train_loss", loss);
    log("doubled", loss * 2);
    return loss;
  }
};

TEST(Logging, ValuesAreReadToTheHostOnlyWhenALoggerWrites) {
  auto host_reads = [](int64_t log_every_n_steps) {
    Calls calls;
    LogsEveryStep module(calls, 40, 0);  // 20 steps
    module.with_scheduler = false;
    auto logger = std::make_shared<MemoryLogger>();
    Trainer t(logged_to(logger, {.max_epochs = 1, .log_every_n_steps = log_every_n_steps}));
    t.fit(module);
    EXPECT_EQ(logger->rows.size(), static_cast<size_t>(20 / log_every_n_steps));
    return t.logger_connector().host_reads();
  };
  EXPECT_EQ(host_reads(5), 4);  // steps 4, 9, 14, 19: both values in one transfer each
  EXPECT_EQ(host_reads(10), 2);
  EXPECT_EQ(host_reads(1), 20);
}

TEST(Logging, LogEveryNStepsZeroKeepsStepValuesFromTheLoggers) {
  Calls calls;
  LogsEveryStep module(calls, 8, 0);
  module.with_scheduler = false;
  auto logger = std::make_shared<MemoryLogger>();
  Trainer t(logged_to(logger, {.max_epochs = 1, .log_every_n_steps = 0}));
  t.fit(module);
  EXPECT_TRUE(logger->rows.empty());
  EXPECT_EQ(t.logger_connector().host_reads(), 0) << "nothing to write, nothing read";
  EXPECT_TRUE(t.callback_metrics().count("train_loss"));
}

TEST(Logging, AStepOfAccumulatedBatchesIsLoggedOnce) {
  Calls calls;
  LogsEveryStep module(calls, 16, 0);  // 8 batches, 4 optimizer steps
  module.with_scheduler = false;
  auto logger = std::make_shared<MemoryLogger>();
  Trainer t(logged_to(logger, {.max_epochs = 1, .log_every_n_steps = 1,
                               .accumulate_grad_batches = 2}));
  t.fit(module);
  std::vector<int64_t> steps;
  for (const auto& [step, m] : logger->rows) steps.push_back(step);
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 1, 2, 3}));
}

// Logs at each validation batch only (on_step), plus what the loggers must not get.
class LogsEvaluationSteps : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  void validation_step(Batch& batch, int64_t idx) override {
    RecordingModule::validation_step(batch, idx);
    log("per_batch", static_cast<double>(idx), {.on_step = true, .on_epoch = false});
    log("hidden", 5.0, {.logger = false});
  }
};

TEST(Logging, EvaluationStepValuesReachTheLoggersAtEachBatchButNotTheCallbackMetrics) {
  Calls calls;
  LogsEvaluationSteps module(calls, 4, 4);  // 2 validation batches
  module.with_scheduler = false;
  auto logger = std::make_shared<MemoryLogger>();
  Trainer t(logged_to(logger, {.max_epochs = 2, .num_sanity_val_steps = 2}));
  t.fit(module);
  // Lightning: at the count of batches this loader ran (the sanity check's not logged, the
  // count going on across the fit's validations), without "epoch".
  std::vector<std::pair<int64_t, double>> rows;
  for (const auto& [step, m] : logger->rows) {
    if (!m.count("per_batch")) continue;
    rows.emplace_back(step, m.at("per_batch"));
    EXPECT_EQ(m.count("epoch"), 0u);
    EXPECT_EQ(m.size(), 1u);
  }
  EXPECT_EQ(rows, (std::vector<std::pair<int64_t, double>>{{0, 0.0}, {1, 1.0}, {2, 0.0}, {3, 1.0}}));
  EXPECT_EQ(t.callback_metrics().count("per_batch"), 0u);
  EXPECT_TRUE(t.callback_metrics().count("val_loss"));
  EXPECT_DOUBLE_EQ(t.callback_metrics().at("hidden"), 5.0);
  for (const auto& [step, m] : logger->rows) EXPECT_EQ(m.count("hidden"), 0u);
}

TEST(Logging, ValidateReturnsWhatTheLoggersGet) {
  Calls calls;
  LogsEvaluationSteps module(calls, 4, 4);
  Trainer t(quiet({}));
  auto metrics = t.validate(module, nullptr, std::nullopt, /*verbose=*/false);
  // Lightning returns the epoch values logged with logger=true: not "hidden", not the step-only
  // "per_batch".
  ASSERT_EQ(metrics.size(), 1u) << "got " << metrics.size();
  EXPECT_TRUE(metrics.count("val_loss"));
  EXPECT_DOUBLE_EQ(t.callback_metrics().at("hidden"), 5.0);
}

TEST(Logging, LoggedMetricsHoldTheLatestValuesWithoutALoggerToo) {
  Calls calls;
  LogsEveryStep module(calls, 20, 0);
  module.with_scheduler = false;
  Trainer t(quiet({.max_epochs = 1, .log_every_n_steps = 50}));  // never due in 10 steps
  t.fit(module);
  const auto& logged = t.logged_metrics();
  ASSERT_TRUE(logged.count("train_loss"));
  EXPECT_DOUBLE_EQ(logged.at("doubled"), 2 * logged.at("train_loss"));
  EXPECT_EQ(logged.count("epoch"), 0u);
}

class LogsAtTrainStart : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  void on_train_start() override {
    RecordingModule::on_train_start();
    log("at_start", 3.0);
  }
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto loss = RecordingModule::training_step(batch, idx);
    log("time_per_step", 0.5);
    return loss;
  }
};

TEST(Logging, ValuesLoggedAtTrainStartCountInTheFirstEpoch) {
  Calls calls;
  LogsAtTrainStart module(calls, 4, 0);
  module.with_scheduler = false;
  auto logger = std::make_shared<MemoryLogger>();
  Trainer t(logged_to(logger, {.max_epochs = 2}));
  t.fit(module);
  EXPECT_DOUBLE_EQ(t.callback_metrics().at("at_start"), 3.0);
  std::vector<int64_t> steps;
  for (const auto& [step, m] : logger->rows) {
    if (m.count("at_start")) steps.push_back(step);
  }
  EXPECT_EQ(steps, (std::vector<int64_t>{1})) << "once, with epoch 0's values";
  // Only names log() forked get the bare alias: "time_per_step" is the user's own name.
  EXPECT_TRUE(t.callback_metrics().count("time_per_step"));
  EXPECT_EQ(t.callback_metrics().count("time_per"), 0u);
}

}  // namespace
}  // namespace fulgur::testing
