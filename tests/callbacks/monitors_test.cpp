// GradientAccumulationScheduler (accumulation per epoch: optimizer steps counted, weights equal
// to a fit with that accumulation), ThroughputMonitor (keys, counts, rates once the window is
// full, validation time excluded) and DeviceStatsMonitor (prefixed keys at log steps).
#include <gtest/gtest.h>

#include <thread>

#include "fulgur/callbacks/device_stats_monitor.h"
#include "fulgur/callbacks/gradient_accumulation_scheduler.h"
#include "fulgur/callbacks/throughput_monitor.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

TrainerOptions with_logger(TrainerOptions o, std::shared_ptr<Logger> logger) {
  o = quiet(std::move(o));
  o.logger = std::move(logger);
  return o;
}

// Counts optimizer steps per epoch through the hook that sees each one.
class StepCounter : public Callback {
 public:
  void on_before_optimizer_step(Trainer& trainer, Module&, Optimizer&) override {
    ++steps[trainer.current_epoch()];
  }
  std::map<int64_t, int> steps;
};

TEST(GradientAccumulationScheduler, ChangesTheAccumulationAtTheScheduledEpochs) {
  Calls calls;
  RecordingModule module(calls, 8, 0);  // 4 batches per epoch
  module.with_scheduler = false;
  auto counter = std::make_shared<StepCounter>();
  auto scheduler = std::make_shared<GradientAccumulationScheduler>(
      std::map<int64_t, int64_t>{{1, 2}, {2, 4}});
  Trainer trainer(quiet({.callbacks = {scheduler, counter}, .max_epochs = 3}));
  trainer.fit(module);
  EXPECT_EQ(counter->steps, (std::map<int64_t, int>{{0, 4}, {1, 2}, {2, 1}}));
  EXPECT_EQ(trainer.global_step(), 7);
  EXPECT_EQ(trainer.accumulate_grad_batches(), 4);
  EXPECT_EQ(scheduler->accumulate_grad_batches_for(0), 1);
  EXPECT_EQ(scheduler->accumulate_grad_batches_for(7), 4);
}

TEST(GradientAccumulationScheduler, GivesTheWeightsOfTheSameAccumulationSetOnTheTrainer) {
  auto weights_after = [](TrainerOptions o) {
    Calls calls;
    torch::manual_seed(3);  // the same initial weights for both fits
    RecordingModule module(calls, 8, 0);
    module.with_scheduler = false;
    Trainer trainer(quiet(std::move(o)));
    trainer.fit(module);
    return torch::cat({module.parameters()[0].flatten(), module.parameters()[1].flatten()});
  };
  const auto scheduled = weights_after(
      {.callbacks = {std::make_shared<GradientAccumulationScheduler>(
           std::map<int64_t, int64_t>{{0, 2}})},
       .max_epochs = 2});
  const auto flag = weights_after({.max_epochs = 2, .accumulate_grad_batches = 2});
  EXPECT_TRUE(torch::equal(scheduled, flag));
}

TEST(GradientAccumulationScheduler, Errors) {
  EXPECT_THROW(GradientAccumulationScheduler(std::map<int64_t, int64_t>{}), ConfigError);
  try {
    GradientAccumulationScheduler(std::map<int64_t, int64_t>{{-1, 2}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "GradientAccumulationScheduler: epochs must be >= 0; got epoch -1");
  }
  try {
    GradientAccumulationScheduler(std::map<int64_t, int64_t>{{2, 0}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "GradientAccumulationScheduler: the batches to accumulate must be >= 1; epoch 2 "
                 "has 0");
  }
  Calls calls;
  RecordingModule module(calls, 8, 0);
  Trainer trainer(quiet({.callbacks = {std::make_shared<GradientAccumulationScheduler>(
                             std::map<int64_t, int64_t>{{1, 2}})},
                         .max_epochs = 1,
                         .accumulate_grad_batches = 2}));
  try {
    trainer.fit(module);
    FAIL();
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "accumulate_grad_batches=2 is set and the GradientAccumulationScheduler callback "
                 "is used; remove one of them");
  }
}

// Sleeps in every training step and in validation, so rates are known within bounds.
class SlowModule : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return RecordingModule::training_step(batch, idx);
  }
  void validation_step(Batch& batch, int64_t idx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    RecordingModule::validation_step(batch, idx);
  }
};

TEST(ThroughputMonitor, CountsAndRatesOverTheWindowWithoutValidationTime) {
  Calls calls;
  SlowModule module(calls, 16, 2);  // 8 batches of 2 samples per epoch, 1 validation batch
  auto logger = std::make_shared<MemoryLogger>();
  auto monitor = std::make_shared<ThroughputMonitor>(ThroughputMonitorOptions{.window_size = 6});
  TrainerOptions o = with_logger({.callbacks = {monitor}, .max_epochs = 2, .log_every_n_steps = 4},
                                 logger);
  o.num_sanity_val_steps = 0;
  Trainer trainer(o);
  trainer.fit(module);
  // Written at steps 3, 7, 11, 15 (every 4th), after batches 4, 8, 12 and 16.
  std::vector<std::map<std::string, double>> rows;
  for (const auto& [step, metrics] : logger->rows) {
    if (metrics.count("train|batches")) rows.push_back(metrics);
  }
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].at("train|batches"), 4);
  EXPECT_EQ(rows[3].at("train|batches"), 16);
  EXPECT_EQ(rows[3].at("train|samples"), 32);
  EXPECT_EQ(rows[0].count("train|device|batches_per_sec"), 0u) << "the window is not full yet";
  EXPECT_EQ(rows[1].count("train|batches_per_sec"), 0u) << "one process: device rates only";
  // ~10 ms a batch: under 100 batches/s (a loaded machine is slower, never faster), samples
  // twice that. Row 2's window (batches 7-12) spans the 1 s validation of epoch 0, which must
  // not count: with it the rate would fall under 5 batches/s.
  for (size_t i = 1; i < rows.size(); ++i) {
    const double rate = rows[i].at("train|device|batches_per_sec");
    EXPECT_GT(rate, 10.0) << i;
    EXPECT_LT(rate, 100.0) << i;
    EXPECT_DOUBLE_EQ(rows[i].at("train|device|samples_per_sec"), 2 * rate);
  }
  EXPECT_LT(rows[3].at("train|time"), 0.9) << "validation time must not count";
  EXPECT_THROW(ThroughputMonitor({.window_size = 1}), ConfigError);
}

TEST(DeviceStatsMonitor, WritesTheAcceleratorsStatsAtLogSteps) {
  Calls calls;
  RecordingModule module(calls, 8, 0);
  auto logger = std::make_shared<MemoryLogger>();
  Trainer trainer(with_logger(
      {.callbacks = {std::make_shared<DeviceStatsMonitor>()}, .max_epochs = 1,
       .log_every_n_steps = 2},
      logger));
  trainer.fit(module);
  // 4 batches: due when steps 1 and 3 are taken (batch start and end each).
  ASSERT_EQ(logger->rows.size(), 4u);
  EXPECT_EQ(logger->rows[0].first, 1);
  const auto& start = logger->rows[0].second;
  EXPECT_GT(start.at("DeviceStatsMonitor.on_train_batch_start/cpu_rss_bytes"), 1e6);
  EXPECT_GE(start.at("DeviceStatsMonitor.on_train_batch_start/cpu_peak_rss_bytes"),
            start.at("DeviceStatsMonitor.on_train_batch_start/cpu_rss_bytes"));
  EXPECT_EQ(logger->rows[1].second.count("DeviceStatsMonitor.on_train_batch_end/cpu_rss_bytes"),
            1u);

  Trainer no_logger(quiet({.callbacks = {std::make_shared<DeviceStatsMonitor>()},
                           .max_epochs = 1}));
  try {
    no_logger.fit(module);
    FAIL();
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "Cannot use the DeviceStatsMonitor callback with a Trainer that has no logger.");
  }
}

}  // namespace
}  // namespace fulgur::testing
