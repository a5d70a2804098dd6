// Trainer(profiler="simple"): every hook, step, backward, batch fetch and transfer, training
// batch and epoch, and checkpoint save timed under Lightning's action names; the report in
// Lightning's layout after each stage, printed or appended to <dirpath>/<stage>-<filename>.txt.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/profilers/simple_profiler.h"
#include "fulgur/strategies/single_device_strategy.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

int64_t calls_of(const SimpleProfiler& profiler, const std::string& action) {
  const auto it = profiler.records().find(action);
  return it == profiler.records().end() ? 0 : it->second.calls;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SimpleProfiler, TimesEveryActionOfAFitUnderLightningsNames) {
  Calls calls;
  RecordingModule module(calls, /*train_samples=*/4, /*val_samples=*/4);  // 2 batches each
  auto profiler = std::make_shared<SimpleProfiler>();
  auto options = quiet({.callbacks = {std::make_shared<RecordingCallback>(calls)},
                        .max_epochs = 2});
  options.profiler = profiler;
  Trainer trainer(options);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  const std::string printed = ::testing::internal::GetCapturedStdout();

  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"run_training_epoch", 2},
      {"run_training_batch", 4},
      {"[Strategy]SingleDeviceStrategy.training_step", 4},
      {"[Strategy]SingleDeviceStrategy.backward", 4},
      {"[Strategy]SingleDeviceStrategy.validation_step", 2 + 4},  // the sanity check's 2, then 2 a epoch
      {"[Strategy]SingleDeviceStrategy.batch_to_device", 4 + 6},
      // One fetch per batch: a loop stops after its last batch, before fetching the end.
      {"[_TrainingEpochLoop].train_dataloader_next", 2 * 2},
      {"[_EvaluationLoop].val_next", 2 + 2 * 2},
      {"[Callback]RecordingCallback.on_train_batch_end", 4},
      {"[Callback]RecordingCallback.on_fit_start", 1},
      {"[Callback]RecordingCallback.setup", 1},
      {"[LightningModule]RecordingModule.on_train_batch_end", 4},
      {"[LightningModule]RecordingModule.configure_optimizers", 1},
      {"[LightningModule]RecordingModule.optimizer_step", 4},
      {"[LightningModule]RecordingModule.train_dataloader", 1},
  };
  for (const auto& [action, n] : expected) EXPECT_EQ(calls_of(*profiler, action), n) << action;
  for (const auto& [action, record] : profiler->records()) {
    EXPECT_GE(record.total_seconds, 0.0) << action;
  }

  EXPECT_EQ(printed.rfind("FIT Profiler Report\n", 0), 0u) << printed;
  EXPECT_NE(printed.find("|  run_training_batch"), std::string::npos) << printed;

  trainer.save_checkpoint(fresh_dir("profiler_save") + "/a.ckpt");
  EXPECT_EQ(calls_of(*profiler, "save_checkpoint"), 1);
}

// A user's own strategy is named by its class, as Lightning's type(strategy).__name__.
class CustomSingleDevice : public SingleDeviceStrategy {
 public:
  std::string name() const override { return "custom"; }
};

TEST(SimpleProfiler, NamesTheStrategyByItsClass) {
  Calls calls;
  RecordingModule module(calls, /*train_samples=*/4, /*val_samples=*/0);
  auto profiler = std::make_shared<SimpleProfiler>();
  auto options = quiet({.max_epochs = 1});
  options.strategy = std::make_shared<CustomSingleDevice>();
  options.profiler = profiler;
  Trainer trainer(options);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(calls_of(*profiler, "[Strategy]CustomSingleDevice.training_step"), 2);
  EXPECT_EQ(calls_of(*profiler, "[Strategy]CustomSingleDevice.backward"), 2);
  EXPECT_EQ(calls_of(*profiler, "[Strategy]SingleDeviceStrategy.training_step"), 0);
}

TEST(SimpleProfiler, ADataModulesHooksAreItsOwn) {
  Calls calls;
  RecordingModule module(calls);
  struct Data : DataModule {
    std::string name() const override { return "Data"; }
    std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(4); }
  } data;
  auto profiler = std::make_shared<SimpleProfiler>();
  auto options = quiet({.max_epochs = 1});
  options.profiler = profiler;
  Trainer trainer(options);
  ::testing::internal::CaptureStdout();
  trainer.fit(module, data);
  ::testing::internal::GetCapturedStdout();
  for (const char* hook : {"prepare_data", "setup", "train_dataloader", "teardown"}) {
    EXPECT_EQ(calls_of(*profiler, std::string("[LightningDataModule]Data.") + hook), 1) << hook;
  }
  EXPECT_EQ(calls_of(*profiler, "[LightningModule]RecordingModule.train_dataloader"), 0);
}

TEST(SimpleProfiler, TheReportIsLightningsTable) {
  SimpleProfiler profiler;
  profiler.setup("fit", std::nullopt, "");
  for (int i = 0; i < 3; ++i) {
    profiler.start("short");
    profiler.stop("short");
  }
  profiler.start("a_much_longer_action");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  profiler.stop("a_much_longer_action");
  const std::string report = profiler.summary();
  std::vector<std::string> lines;
  std::stringstream in(report);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  // Title, an empty line (Lightning's), rule, header, rule, Total, rule, the two actions (most
  // time first), rule.
  ASSERT_EQ(lines.size(), 10u) << report;
  EXPECT_EQ(lines[0], "FIT Profiler Report");
  EXPECT_EQ(lines[1], "");
  EXPECT_EQ(lines[3],
            "|  Action              \t|  Mean duration (s)\t|  Num calls      \t|  Total time (s) "
            "\t|  Percentage %   \t|");
  // The rule is as wide as the header with its tabs expanded to 8 columns.
  EXPECT_EQ(lines[2], std::string(5 * 24 + 1, '-'));
  EXPECT_EQ(lines[4], lines[2]);
  EXPECT_EQ(lines[5].rfind("|  Total               \t|  -              \t|  4              \t|", 0),
            0u)
      << lines[5];
  EXPECT_TRUE(lines[5].ends_with("\t|  100 %          \t|")) << lines[5];
  EXPECT_EQ(lines[6], lines[2]);
  EXPECT_EQ(lines[7].rfind("|  a_much_longer_action\t|  0.02", 0), 0u) << lines[7];
  EXPECT_NE(lines[7].find("\t|  1              \t|"), std::string::npos) << lines[7];
  EXPECT_EQ(lines[8].rfind("|  short               \t|", 0), 0u) << lines[8];
  EXPECT_NE(lines[8].find("\t|  3              \t|"), std::string::npos) << lines[8];
  EXPECT_EQ(lines[9], lines[2]);

  SimpleProfiler plain({.extended = false});
  plain.start("x");
  plain.stop("x");
  EXPECT_NE(plain.summary().find("|  Action\t|  Mean duration (s)\t|  Total time (s) \t|"),
            std::string::npos)
      << plain.summary();
}

TEST(SimpleProfiler, StartingTwiceOrStoppingUnstartedIsAnError) {
  SimpleProfiler profiler;
  profiler.start("a");
  try {
    profiler.start("a");
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(), "Attempted to start a which has already started.");
  }
  try {
    profiler.stop("b");
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "Attempting to stop recording an action (b) which was never started.");
  }
}

TEST(SimpleProfiler, AFilenameWritesOneReportPerStageIntoTheLogDir) {
  const auto dir = fresh_dir("profiler_file");
  Calls calls;
  RecordingModule module(calls);
  auto options = quiet({.max_epochs = 1, .default_root_dir = dir});
  options.profiler = std::make_shared<SimpleProfiler>(SimpleProfilerOptions{.filename = "perf"});
  Trainer trainer(options);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  trainer.test(module, nullptr, std::nullopt, false);
  trainer.test(module, nullptr, std::nullopt, false);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed.find("Profiler Report"), std::string::npos) << printed;
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"fit-perf.txt", "test-perf.txt"}));
  EXPECT_EQ(read(dir + "/fit-perf.txt").rfind("FIT Profiler Report\n", 0), 0u);
  // Appended, as Lightning's; the actions keep counting across stages, as Lightning's.
  const std::string tests = read(dir + "/test-perf.txt");
  const auto second = tests.find("TEST Profiler Report", 1);
  ASSERT_NE(second, std::string::npos) << tests;
  EXPECT_NE(tests.find("run_training_epoch", second), std::string::npos);

  // Several processes: the local rank in the name; a dirpath of its own.
  SimpleProfiler ranked({.dirpath = dir + "/p", .filename = "a:b"});
  ranked.setup("validate", 1, dir);
  EXPECT_EQ(ranked.report_path(), dir + "/p/validate-a_b-1.txt");
}

TEST(SimpleProfiler, TheOptionTakesANameInAnyCaseAndRefusesOthers) {
  Trainer named(quiet({.profiler = "Simple"}));
  ASSERT_NE(named.profiler(), nullptr);
  EXPECT_NE(dynamic_cast<SimpleProfiler*>(named.profiler()), nullptr);
  EXPECT_EQ(Trainer(quiet({})).profiler(), nullptr);
  try {
    Trainer t(quiet({.profiler = "advanced"}));
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "When passing string value for the `profiler` parameter of `Trainer`, it can "
                 "only be one of ['simple']");
  }
}

// A profiler of one's own sees the actions nest: a step inside its batch, the batch inside its
// epoch.
class OrderProfiler : public Profiler {
 public:
  void start(const std::string& action) override { events.push_back("+" + action); }
  void stop(const std::string& action) override { events.push_back("-" + action); }
  std::vector<std::string> events;
};

TEST(SimpleProfiler, ActionsNest) {
  Calls calls;
  RecordingModule module(calls, 2, 0);  // one batch, no validation
  auto profiler = std::make_shared<OrderProfiler>();
  Trainer trainer(quiet({.max_epochs = 1, .profiler = profiler}));
  trainer.fit(module);
  auto at = [&](const std::string& event) {
    return std::find(profiler->events.begin(), profiler->events.end(), event) -
           profiler->events.begin();
  };
  EXPECT_LT(at("+run_training_epoch"), at("+run_training_batch"));
  EXPECT_LT(at("+run_training_batch"), at("+[Strategy]SingleDeviceStrategy.training_step"));
  EXPECT_LT(at("-[Strategy]SingleDeviceStrategy.training_step"), at("+[Strategy]SingleDeviceStrategy.backward"));
  EXPECT_LT(at("-[Strategy]SingleDeviceStrategy.backward"), at("-run_training_batch"));
  EXPECT_LT(at("-run_training_batch"), at("-run_training_epoch"));
  EXPECT_LT(at("-run_training_epoch"), static_cast<std::ptrdiff_t>(profiler->events.size()));
}

}  // namespace
}  // namespace fulgur::testing
