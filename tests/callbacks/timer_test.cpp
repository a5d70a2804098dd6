// Timer (max_time): when it checks the limit, what it prints, and its checkpoint state, which
// a resumed fit goes on counting from.
#include <gtest/gtest.h>

#include "fulgur/callbacks/timer.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

using std::chrono::duration;

int64_t steps_until_stopped(std::shared_ptr<Timer> timer) {
  Calls calls;
  RecordingModule module(calls, 20, 0);  // 10 batches an epoch
  module.with_scheduler = false;
  Trainer t(quiet({.callbacks = {std::move(timer)}, .max_epochs = 3}));
  t.fit(module);
  return t.global_step();
}

TEST(Timer, ChecksAfterEachBatchOrAtEpochEndsAsAsked) {
  // A nanosecond: not spent when the fit starts, spent after the first batch.
  const duration<double> tiny(1e-9);
  EXPECT_EQ(steps_until_stopped(std::make_shared<Timer>(tiny, TimerOptions{.verbose = false})), 1);
  EXPECT_EQ(steps_until_stopped(std::make_shared<Timer>(
                tiny, TimerOptions{.interval = TimerInterval::Epoch, .verbose = false})),
            10);
}

TEST(Timer, SaysWhenItStopsTheFitUnlessQuiet) {
  ::testing::internal::CaptureStdout();
  steps_until_stopped(std::make_shared<Timer>(duration<double>(1e-9)));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "Time limit reached. Elapsed time is 0:00:00. Signaling Trainer to stop.\n");
  ::testing::internal::CaptureStdout();
  steps_until_stopped(std::make_shared<Timer>(duration<double>(1e-9), TimerOptions{.verbose = false}));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

TEST(Timer, ItsStateIsLightningsAndAResumedFitCountsOnFromIt) {
  auto timer = std::make_shared<Timer>(duration<double>(60));
  steps_until_stopped(timer);  // 3 epochs, well inside the minute
  const auto state = timer->state_dict().toGenericDict();
  const auto elapsed = state.at("time_elapsed").toGenericDict();
  EXPECT_EQ(elapsed.size(), 5u);  // train, sanity_check, validate, test, predict
  EXPECT_GT(elapsed.at("train").toDouble(), 0.0);
  EXPECT_EQ(elapsed.at("test").toDouble(), 0.0);

  // A checkpoint that had counted 61 s: the resumed fit stops before it trains.
  auto resumed = std::make_shared<Timer>(duration<double>(60));
  auto saved = make_checkpoint_dict();
  auto saved_elapsed = make_checkpoint_dict();
  saved_elapsed.insert("train", 61.0);
  saved.insert("time_elapsed", saved_elapsed);
  resumed->load_state_dict(saved);
  EXPECT_DOUBLE_EQ(resumed->time_elapsed(), 61.0);
  EXPECT_DOUBLE_EQ(resumed->time_remaining(), -1.0);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(steps_until_stopped(resumed), 0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "Time limit reached. Elapsed time is 0:01:01. Signaling Trainer to stop.\n");
}

TEST(Timer, ABadStateIsACheckpointErrorNamingIt) {
  Timer timer(duration<double>(60));
  auto saved = make_checkpoint_dict();
  saved.insert("time_elapsed", std::string("an hour"));
  try {
    timer.load_state_dict(saved);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("Timer"), std::string::npos) << e.what();
  }
  EXPECT_DOUBLE_EQ(timer.time_elapsed(), 0.0) << "left as it was";
  timer.load_state_dict(make_checkpoint_dict());  // Lightning's .get: nothing saved, nothing kept
  EXPECT_DOUBLE_EQ(timer.time_elapsed(), 0.0);
}

}  // namespace
}  // namespace fulgur::testing
