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
    TrainerOptions o = quiet({.max_epochs = 1, .log_every_n_steps = log_every_n_steps});
    o.logger = logger;
    Trainer t(o);
    t.fit(module);
    EXPECT_EQ(logger->rows.size(), static_cast<size_t>(20 / log_every_n_steps));
    return t.logger_connector().host_reads();
  };
  EXPECT_EQ(host_reads(5), 4);  // steps 4, 9, 14, 19: both values in one transfer each
  EXPECT_EQ(host_reads(10), 2);
  EXPECT_EQ(host_reads(1), 20);
}

}  // namespace
}  // namespace fulgur::testing
