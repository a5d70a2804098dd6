// LightningCLI's callbacks and loggers chosen by class name (trainer.callbacks, trainer.logger):
// the YAML and command-line forms, their order, the objects built, --print_config round trip, help,
// and the exact error texts. Nothing here trains.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fulgur/callbacks/backbone_finetuning.h"
#include "fulgur/callbacks/batch_size_finder.h"
#include "fulgur/callbacks/device_stats_monitor.h"
#include "fulgur/callbacks/early_stopping.h"
#include "fulgur/callbacks/ema_weight_averaging.h"
#include "fulgur/callbacks/gradient_accumulation_scheduler.h"
#include "fulgur/callbacks/learning_rate_finder.h"
#include "fulgur/callbacks/learning_rate_monitor.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/callbacks/model_pruning.h"
#include "fulgur/callbacks/model_summary.h"
#include "fulgur/callbacks/on_exception_checkpoint.h"
#include "fulgur/callbacks/stochastic_weight_averaging.h"
#include "fulgur/callbacks/throughput_monitor.h"
#include "fulgur/callbacks/timer.h"
#include "fulgur/cli/callback_registry.h"
#include "fulgur/cli/lightning_cli.h"
#include "fulgur/cli/logger_registry.h"
#include "fulgur/errors.h"
#include "fulgur/loggers/csv_logger.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

const char* kCallbacks =
    "BackboneFinetuning, BatchSizeFinder, DeviceStatsMonitor, EMAWeightAveraging, EarlyStopping, "
    "GradientAccumulationScheduler, LearningRateFinder, LearningRateMonitor, ModelCheckpoint, "
    "ModelPruning, ModelSummary, OnExceptionCheckpoint, StochasticWeightAveraging, "
    "ThroughputMonitor, Timer, WeightAveraging";

class CLIComponentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("fulgur_cli_components_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    cli = make_cli();
  }
  void TearDown() override { fs::remove_all(dir); }

  static std::unique_ptr<LightningCLI> make_cli(TrainerOptions defaults = {}) {
    return std::make_unique<LightningCLI>(
        // Without the SaveConfigCallback (lightning_cli_test.cpp covers it): the lists here
        // hold the chosen callbacks only.
        LightningCLIOptions{.program = "prog",
                            .trainer_defaults = std::move(defaults),
                            .save_config_callback = false});
  }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  }

  std::string error_of(std::vector<std::string> args) {
    try {
      cli->parse(args);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "<no ConfigError>";
  }

  template <typename C>
  std::shared_ptr<C> callback(size_t index) {
    const auto& callbacks = cli->trainer_options().callbacks;
    if (index >= callbacks.size()) return nullptr;
    return std::dynamic_pointer_cast<C>(callbacks[index]);
  }

  template <typename L>
  std::shared_ptr<L> logger(size_t index) {
    const auto& loggers = cli->trainer_options().logger.loggers;
    if (index >= loggers.size()) return nullptr;
    return std::dynamic_pointer_cast<L>(loggers[index]);
  }

  // The current text of init arg `key` of entry `index` of trainer.callbacks.
  OptionText init_arg(size_t index, const std::string& key) {
    return cli->callbacks().entries().at(index).args->init_args().find(key)->current();
  }

  fs::path dir;
  std::unique_ptr<LightningCLI> cli;
};

TEST_F(CLIComponentsTest, YamlChoosesCallbacksAndALogger) {
  const std::string c = write("c.yaml",
                              "trainer:\n"
                              "  callbacks:\n"
                              "    - class_path: EarlyStopping\n"
                              "      init_args:\n"
                              "        monitor: val_loss\n"
                              "        patience: 5\n"
                              "    - class_path: lightning.pytorch.callbacks.LearningRateMonitor\n"
                              "      init_args: {logging_interval: step}\n"
                              "    - class_path: fulgur.ModelCheckpoint\n"
                              "      init_args: {monitor: val_acc, mode: max, save_top_k: 2,\n"
                              "                  train_time_interval: 90.5, every_n_epochs: null}\n"
                              "  logger:\n"
                              "    class_path: CSVLogger\n"
                              "    init_args: {save_dir: logs, name: mnist}\n");
  ASSERT_EQ(cli->parse({"fit", "--config", c}), CLIAction::Run);
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 3u);
  auto early = callback<EarlyStopping>(0);
  ASSERT_NE(early, nullptr);
  EXPECT_EQ(early->options().monitor, "val_loss");
  EXPECT_EQ(early->options().patience, 5);
  EXPECT_EQ(early->options().mode, "min");  // defaults stay
  EXPECT_TRUE(early->options().strict);
  EXPECT_NE(callback<LearningRateMonitor>(1), nullptr);
  EXPECT_EQ(init_arg(1, "logging_interval"), "step");
  auto checkpoint = callback<ModelCheckpoint>(2);
  ASSERT_NE(checkpoint, nullptr);
  EXPECT_EQ(checkpoint->options().monitor, "val_acc");
  EXPECT_EQ(checkpoint->options().mode, "max");
  EXPECT_EQ(checkpoint->options().save_top_k, 2);
  ASSERT_TRUE(checkpoint->options().train_time_interval.has_value());
  EXPECT_DOUBLE_EQ(checkpoint->options().train_time_interval->count(), 90.5);
  EXPECT_FALSE(checkpoint->options().every_n_epochs.has_value());

  const LoggerFlag& flag = cli->trainer_options().logger;
  EXPECT_TRUE(flag.enabled);
  ASSERT_EQ(flag.loggers.size(), 1u);
  auto csv = logger<CSVLogger>(0);
  ASSERT_NE(csv, nullptr);
  EXPECT_EQ(csv->save_dir(), "logs");
  EXPECT_EQ(csv->name(), "mnist");
}

TEST_F(CLIComponentsTest, CommandLineAppendsAndSetsTheLastEntry) {
  ASSERT_EQ(cli->parse({"fit", "--trainer.callbacks+=EarlyStopping",
                        "--trainer.callbacks.monitor=val_loss", "--trainer.callbacks.patience=5",
                        "--trainer.callbacks+", "LearningRateMonitor",
                        "--trainer.callbacks.init_args.logging_interval", "epoch",
                        "--trainer.callbacks+=lightning.pytorch.callbacks.ThroughputMonitor",
                        "--trainer.callbacks.window_size=10", "--trainer.logger=CSVLogger",
                        "--trainer.logger.save_dir=logs", "--trainer.logger.name", "mnist"}),
            CLIAction::Run);
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 3u);
  auto early = callback<EarlyStopping>(0);
  ASSERT_NE(early, nullptr);
  EXPECT_EQ(early->options().monitor, "val_loss");
  EXPECT_EQ(early->options().patience, 5);
  EXPECT_NE(callback<LearningRateMonitor>(1), nullptr);
  EXPECT_EQ(init_arg(1, "logging_interval"), "epoch");
  EXPECT_NE(callback<ThroughputMonitor>(2), nullptr);
  EXPECT_EQ(init_arg(2, "window_size"), "10");
  auto csv = logger<CSVLogger>(0);
  ASSERT_NE(csv, nullptr);
  EXPECT_EQ(csv->save_dir(), "logs");
  EXPECT_EQ(csv->name(), "mnist");
}

TEST_F(CLIComponentsTest, TunerCallbacksTakeLightningsArguments) {
  ASSERT_EQ(cli->parse({"fit", "--trainer.callbacks+=LearningRateFinder",
                        "--trainer.callbacks.num_training_steps=30",
                        "--trainer.callbacks.early_stop_threshold=null",
                        "--trainer.callbacks+=BatchSizeFinder",
                        "--trainer.callbacks.mode=binsearch", "--trainer.callbacks.init_val=8"}),
            CLIAction::Run);
  auto lr = callback<LearningRateFinder>(0);
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(lr->options().num_training, 30);
  EXPECT_FALSE(lr->options().early_stop_threshold);
  auto bs = callback<BatchSizeFinder>(1);
  ASSERT_NE(bs, nullptr);
  EXPECT_EQ(bs->options().mode, "binsearch");
  EXPECT_EQ(bs->options().init_val, 8);
}

TEST_F(CLIComponentsTest, ConfigFilesFirstThenTheCommandLine) {
  const std::string a = write("a.yaml",
                              "trainer:\n  callbacks:\n"
                              "    - {class_path: ModelSummary, init_args: {max_depth: 2}}\n"
                              "    - {class_path: EarlyStopping, init_args: {monitor: a_loss}}\n");
  const std::string b = write("b.yaml",
                              "trainer:\n  callbacks:\n"
                              "    - {class_path: EarlyStopping, init_args: {monitor: b_loss}}\n");
  // The command-line keys come first on the line and still apply after the files: `.patience` sets
  // the last file entry, `+=` appends after it.
  cli->parse({"fit", "--trainer.callbacks.patience=7", "--trainer.callbacks+=DeviceStatsMonitor",
              "--config", a});
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 3u);
  EXPECT_NE(callback<ModelSummary>(0), nullptr);
  EXPECT_EQ(callback<EarlyStopping>(1)->options().monitor, "a_loss");
  EXPECT_EQ(callback<EarlyStopping>(1)->options().patience, 7);
  EXPECT_NE(callback<DeviceStatsMonitor>(2), nullptr);

  // A later file's list replaces an earlier one's.
  cli->parse({"fit", "--config", a, "--config", b, "--trainer.callbacks+=ModelSummary"});
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 2u);
  EXPECT_EQ(callback<EarlyStopping>(0)->options().monitor, "b_loss");
  EXPECT_NE(callback<ModelSummary>(1), nullptr);

  // `=` replaces the files' list; null empties it.
  cli->parse({"fit", "--config", a, "--trainer.callbacks=Timer",
              "--trainer.callbacks.duration=00:01:00:00"});
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 1u);
  ASSERT_NE(callback<Timer>(0), nullptr);
  EXPECT_EQ(callback<Timer>(0)->options().interval, TimerInterval::Step);
  EXPECT_TRUE(callback<Timer>(0)->options().verbose);
  cli->parse({"fit", "--config", a, "--trainer.callbacks=Timer",
              "--trainer.callbacks.duration=00:01:00:00", "--trainer.callbacks.interval=epoch",
              "--trainer.callbacks.verbose=false"});
  ASSERT_NE(callback<Timer>(0), nullptr);
  EXPECT_EQ(callback<Timer>(0)->options().interval, TimerInterval::Epoch);
  EXPECT_FALSE(callback<Timer>(0)->options().verbose);
  EXPECT_THROW(cli->parse({"fit", "--config", a, "--trainer.callbacks=Timer",
                           "--trainer.callbacks.duration=00:01:00:00",
                           "--trainer.callbacks.interval=hour"}),
               ConfigError);
  cli->parse({"fit", "--config", a, "--trainer.callbacks=null"});
  EXPECT_TRUE(cli->trainer_options().callbacks.empty());
  cli->parse({"fit", "--config", a, "--trainer.callbacks=[]"});
  EXPECT_TRUE(cli->trainer_options().callbacks.empty());
}

TEST_F(CLIComponentsTest, TheProgramsCallbacksComeFirstAndParseStartsAfresh) {
  TrainerOptions defaults;
  defaults.callbacks.push_back(std::make_shared<ModelSummary>(3));
  cli = make_cli(defaults);
  for (int round = 0; round < 2; ++round) {
    cli->parse({"fit", "--trainer.callbacks+=EarlyStopping", "--trainer.callbacks.monitor=m"});
    ASSERT_EQ(cli->trainer_options().callbacks.size(), 2u) << round;
    EXPECT_EQ(cli->trainer_options().callbacks[0], defaults.callbacks[0]);
    EXPECT_NE(callback<EarlyStopping>(1), nullptr);
  }
  cli->parse({"fit"});
  EXPECT_EQ(cli->trainer_options().callbacks, defaults.callbacks);
}

TEST_F(CLIComponentsTest, LoggerIsABoolOneLoggerOrSeveral) {
  cli->parse({"fit", "--trainer.logger=false"});
  EXPECT_FALSE(cli->trainer_options().logger.enabled);
  EXPECT_TRUE(cli->trainer_options().logger.loggers.empty());
  cli->parse({"fit", "--trainer.logger"});
  EXPECT_TRUE(cli->trainer_options().logger.enabled);
  EXPECT_TRUE(cli->trainer_options().logger.loggers.empty());
  cli->parse({"fit", "--trainer.logger", "CSVLogger"});
  EXPECT_NE(logger<CSVLogger>(0), nullptr);

  cli->parse({"fit", "--trainer.logger=CSVLogger", "--trainer.logger+=CSVLogger",
              "--trainer.logger.name=second", "--trainer.logger.version=3"});
  ASSERT_EQ(cli->trainer_options().logger.loggers.size(), 2u);
  EXPECT_EQ(logger<CSVLogger>(0)->name(), "lightning_logs");
  EXPECT_EQ(logger<CSVLogger>(1)->name(), "second");
  EXPECT_EQ(logger<CSVLogger>(1)->version(), "version_3");

  const std::string list = write("list.yaml",
                                 "trainer:\n  logger:\n"
                                 "    - {class_path: CSVLogger, init_args: {name: one}}\n"
                                 "    - {class_path: CSVLogger, init_args: {name: two}}\n");
  cli->parse({"fit", "--config", list});
  ASSERT_EQ(cli->trainer_options().logger.loggers.size(), 2u);
  EXPECT_EQ(logger<CSVLogger>(1)->name(), "two");

  // false in a file; null (Lightning's printed default) means the default logger again.
  const std::string off = write("off.yaml", "trainer:\n  logger: false\n");
  const std::string null = write("null.yaml", "trainer:\n  logger: null\n");
  cli->parse({"fit", "--config", list, "--config", off});
  EXPECT_FALSE(cli->trainer_options().logger.enabled);
  cli->parse({"fit", "--config", off, "--config", null});
  EXPECT_TRUE(cli->trainer_options().logger.enabled);
  EXPECT_TRUE(cli->trainer_options().logger.loggers.empty());
}

TEST_F(CLIComponentsTest, TrueKeepsTheProgramsLogger) {
  TrainerOptions defaults;
  auto mine = std::make_shared<CSVLogger>(CSVLoggerOptions{.name = "mine"});
  defaults.logger = mine;
  cli = make_cli(defaults);
  cli->parse({"fit", "--trainer.logger=true"});
  ASSERT_EQ(cli->trainer_options().logger.loggers.size(), 1u);
  EXPECT_EQ(cli->trainer_options().logger.loggers[0], mine);

  TrainerOptions quiet;
  quiet.logger = false;
  cli = make_cli(quiet);
  cli->parse({"fit"});
  EXPECT_FALSE(cli->trainer_options().logger.enabled);
  cli->parse({"fit", "--trainer.logger=true"});
  EXPECT_TRUE(cli->trainer_options().logger.enabled);
}

TEST_F(CLIComponentsTest, EveryRegisteredCallbackBuilds) {
  const std::string c =
      write("all.yaml",
            "trainer:\n  callbacks:\n"
            "    - {class_path: OnExceptionCheckpoint,\n"
            "       init_args: {dirpath: /tmp/x, filename: boom}}\n"
            "    - {class_path: DeviceStatsMonitor, init_args: {cpu_stats: true}}\n"
            "    - class_path: GradientAccumulationScheduler\n"
            "      init_args:\n"
            "        scheduling:\n"
            "          0: 1\n"
            "          4: 2\n"
            "    - {class_path: ThroughputMonitor,\n"
            "       init_args: {window_size: 5, separator: /}}\n"
            "    - {class_path: ModelSummary, init_args: {max_depth: 2}}\n"
            "    - {class_path: Timer, init_args: {duration: '00:00:30:00'}}\n");
  cli->parse({"fit", "--config", c});
  ASSERT_EQ(cli->trainer_options().callbacks.size(), 6u);
  ASSERT_NE(callback<OnExceptionCheckpoint>(0), nullptr);
  EXPECT_EQ(callback<OnExceptionCheckpoint>(0)->ckpt_path(), "/tmp/x/boom.ckpt");
  EXPECT_NE(callback<DeviceStatsMonitor>(1), nullptr);
  EXPECT_EQ(init_arg(1, "cpu_stats"), "true");
  ASSERT_NE(callback<GradientAccumulationScheduler>(2), nullptr);
  EXPECT_EQ(callback<GradientAccumulationScheduler>(2)->scheduling(),
            (std::map<int64_t, int64_t>{{0, 1}, {4, 2}}));
  EXPECT_NE(callback<ThroughputMonitor>(3), nullptr);
  EXPECT_EQ(init_arg(3, "separator"), "/");
  EXPECT_NE(callback<ModelSummary>(4), nullptr);
  EXPECT_EQ(init_arg(4, "max_depth"), "2");
  EXPECT_NE(callback<Timer>(5), nullptr);

  cli->parse({"fit", "--trainer.callbacks+=GradientAccumulationScheduler",
              "--trainer.callbacks.scheduling={0: 2, 8: 4}"});
  EXPECT_EQ(callback<GradientAccumulationScheduler>(0)->scheduling(),
            (std::map<int64_t, int64_t>{{0, 2}, {8, 4}}));
}

TEST_F(CLIComponentsTest, ProgramsRegisterTheirOwnCallbacks) {
  struct CountOptions {
    int64_t every = 10;
  };
  struct Counter : Callback {
    explicit Counter(int64_t n) : every(n) {}
    std::string name() const override { return "Counter"; }
    int64_t every;
  };
  callback_registry().add<CountOptions>(
      "Counter", "counts batches",
      [](OptionSchema& a, CountOptions& o) { a.add("every", o.every, "how often"); },
      [](const CountOptions& o) { return std::make_shared<Counter>(o.every); });
  struct Unregister {
    ~Unregister() { callback_registry().remove("Counter"); }
  } unregister;

  cli->parse({"fit", "--trainer.callbacks+=my.package.Counter", "--trainer.callbacks.every=3"});
  auto counter = callback<Counter>(0);
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->every, 3);
  EXPECT_NE(cli->help().find("  Counter  counts batches\n"), std::string::npos);
}

TEST_F(CLIComponentsTest, PrintConfigRoundTrips) {
  const std::string c = write("c.yaml",
                              "trainer:\n  callbacks:\n"
                              "    - class_path: EarlyStopping\n"
                              "      init_args: {monitor: \"null\", stopping_threshold: 0.05}\n"
                              "    - class_path: GradientAccumulationScheduler\n"
                              "      init_args: {scheduling: {0: 1, 4: 2}}\n");
  ASSERT_EQ(
      cli->parse({"fit", "--print_config", "--config", c, "--trainer.callbacks+=ModelCheckpoint",
                  "--trainer.callbacks.filename={epoch}-best", "--trainer.callbacks.save_top_k=-1",
                  "--trainer.callbacks.train_time_interval=60", "--trainer.logger=CSVLogger",
                  "--trainer.logger.save_dir=/tmp/out dir", "--trainer.logger.prefix="}),
      CLIAction::PrintConfig);
  const std::string printed = cli->config_yaml();
  EXPECT_NE(printed.find("  logger:\n"
                         "    class_path: CSVLogger\n"
                         "    init_args:\n"
                         "      save_dir: /tmp/out dir\n"
                         "      name: lightning_logs\n"
                         "      version: null\n"
                         "      prefix: \"\"\n"
                         "      flush_logs_every_n_steps: 100\n"
                         "  callbacks:\n"
                         "    - class_path: EarlyStopping\n"
                         "      init_args:\n"
                         "        monitor: \"null\"\n"
                         "        min_delta: 0.0\n"
                         "        patience: 3\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("        stopping_threshold: 0.05\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("        scheduling: {0: 1, 4: 2}\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("        filename: \"{epoch}-best\"\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("        train_time_interval: 60.0\n"), std::string::npos) << printed;

  const std::string file = write("printed.yaml", printed);
  auto again = make_cli();
  ASSERT_EQ(again->parse({"fit", "--config", file, "--print_config"}), CLIAction::PrintConfig);
  EXPECT_EQ(again->config_yaml(), printed);
  ASSERT_EQ(again->parse({"fit", "--config", file}), CLIAction::Run);
  const auto& callbacks = again->trainer_options().callbacks;
  ASSERT_EQ(callbacks.size(), 3u);
  auto early = std::dynamic_pointer_cast<EarlyStopping>(callbacks[0]);
  ASSERT_NE(early, nullptr);
  EXPECT_EQ(early->options().monitor, "null");
  EXPECT_EQ(early->options().stopping_threshold, 0.05);
  auto schedule = std::dynamic_pointer_cast<GradientAccumulationScheduler>(callbacks[1]);
  ASSERT_NE(schedule, nullptr);
  EXPECT_EQ(schedule->scheduling(), (std::map<int64_t, int64_t>{{0, 1}, {4, 2}}));
  auto checkpoint = std::dynamic_pointer_cast<ModelCheckpoint>(callbacks[2]);
  ASSERT_NE(checkpoint, nullptr);
  EXPECT_EQ(checkpoint->options().filename, "{epoch}-best");
  EXPECT_EQ(checkpoint->options().save_top_k, -1);
  auto csv = std::dynamic_pointer_cast<CSVLogger>(again->trainer_options().logger.loggers.at(0));
  ASSERT_NE(csv, nullptr);
  EXPECT_EQ(csv->save_dir(), "/tmp/out dir");

  // The defaults print as Lightning prints them, and read back.
  auto plain = make_cli();
  plain->parse({"--print_config"});
  EXPECT_NE(plain->config_yaml().find("  logger: true\n  callbacks: null\n"), std::string::npos)
      << plain->config_yaml();
  // Printing builds nothing, so an incomplete entry still prints.
  EXPECT_EQ(cli->parse({"--print_config", "--trainer.callbacks+=EarlyStopping"}),
            CLIAction::PrintConfig);
}

TEST_F(CLIComponentsTest, BackboneFinetuningTakesLightningsInitArgs) {
  const std::string c =
      write("c.yaml",
            "trainer:\n"
            "  callbacks:\n"
            "    - class_path: lightning.pytorch.callbacks.BackboneFinetuning\n"
            "      init_args: {unfreeze_backbone_at_epoch: 3, train_bn: false,\n"
            "                  backbone_initial_lr: 0.002, backbone: features}\n");
  ASSERT_EQ(cli->parse({"fit", "--config", c}), CLIAction::Run);
  auto finetuning = callback<BackboneFinetuning>(0);
  ASSERT_NE(finetuning, nullptr);
  EXPECT_EQ(finetuning->options().unfreeze_backbone_at_epoch, 3);
  EXPECT_FALSE(finetuning->options().train_bn);
  EXPECT_EQ(finetuning->options().backbone_initial_lr, 0.002);
  EXPECT_EQ(finetuning->options().backbone, "features");
  EXPECT_DOUBLE_EQ(finetuning->options().backbone_initial_ratio_lr, 0.1);  // defaults stay
  EXPECT_DOUBLE_EQ(finetuning->options().lambda_func(5), 2.0);
}

TEST_F(CLIComponentsTest, StochasticWeightAveragingTakesLightningsInitArgs) {
  const std::string c =
      write("c.yaml",
            "trainer:\n"
            "  callbacks:\n"
            "    - class_path: lightning.pytorch.callbacks.StochasticWeightAveraging\n"
            "      init_args: {swa_lrs: [0.01, 0.002], swa_epoch_start: 3,\n"
            "                  annealing_strategy: linear}\n"
            "    - class_path: StochasticWeightAveraging\n"
            "      init_args: {swa_lrs: 0.05, swa_epoch_start: 0.5, annealing_epochs: 2}\n");
  ASSERT_EQ(cli->parse({"fit", "--config", c}), CLIAction::Run);
  auto first = callback<StochasticWeightAveraging>(0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->options().swa_lrs, (std::vector<double>{0.01, 0.002}));
  EXPECT_EQ(std::get<int64_t>(first->options().swa_epoch_start), 3);
  EXPECT_EQ(first->options().annealing_strategy, "linear");
  EXPECT_EQ(first->options().annealing_epochs, 10);  // the default stays
  auto second = callback<StochasticWeightAveraging>(1);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->options().swa_lrs, (std::vector<double>{0.05}));
  EXPECT_EQ(std::get<double>(second->options().swa_epoch_start), 0.5);
  EXPECT_EQ(second->options().annealing_epochs, 2);

  const std::string bad = write("bad.yaml",
                                "trainer:\n"
                                "  callbacks:\n"
                                "    - class_path: StochasticWeightAveraging\n"
                                "      init_args: {swa_lrs: [0.01, x]}\n");
  EXPECT_EQ(error_of({"fit", "--config", bad}),
            "invalid value '[0.01, x]' for trainer.callbacks[0].init_args.swa_lrs in config " +
                bad + ": expected float|list[float]");
}

TEST_F(CLIComponentsTest, WeightAveragingCallbacksTakeLightningsInitArgs) {
  const std::string c = write(
      "c.yaml",
      "trainer:\n"
      "  callbacks:\n"
      "    - class_path: lightning.pytorch.callbacks.EMAWeightAveraging\n"
      "      init_args: {decay: 0.99, update_every_n_steps: 4, update_starting_at_step: 100,\n"
      "                  use_buffers: false}\n"
      "    - class_path: WeightAveraging\n");
  ASSERT_EQ(cli->parse({"fit", "--config", c}), CLIAction::Run);
  auto ema = callback<EMAWeightAveraging>(0);
  ASSERT_NE(ema, nullptr);
  EXPECT_EQ(ema->options().decay, 0.99);
  EXPECT_EQ(ema->options().update_every_n_steps, 4);
  EXPECT_EQ(ema->options().update_starting_at_step, 100);
  EXPECT_FALSE(ema->options().use_buffers);
  EXPECT_EQ(ema->options().update_starting_at_epoch, std::nullopt);  // the default stays
  EXPECT_NE(callback<WeightAveraging>(1), nullptr);

  const std::string bad = write("bad.yaml",
                                "trainer:\n"
                                "  callbacks:\n"
                                "    - class_path: EMAWeightAveraging\n"
                                "      init_args: {decay: 2}\n");
  // The callback's own check, as it is built.
  try {
    cli->parse({"fit", "--config", bad});
    ADD_FAILURE() << "no error";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(), "EMAWeightAveraging: decay must be in [0, 1], got 2");
  }
}

TEST_F(CLIComponentsTest, ModelPruningTakesLightningsInitArgs) {
  ASSERT_EQ(cli->parse({"fit", "--trainer.callbacks+=ModelPruning",
                        "--trainer.callbacks.pruning_fn=ln_structured",
                        "--trainer.callbacks.use_global_unstructured=false",
                        "--trainer.callbacks.amount=3", "--trainer.callbacks.pruning_dim=0",
                        "--trainer.callbacks.pruning_norm=2", "--trainer.callbacks.verbose=1",
                        "--trainer.callbacks+=ModelPruning",
                        "--trainer.callbacks.pruning_fn=l1_unstructured",
                        "--trainer.callbacks.amount=0.25",
                        "--trainer.callbacks.use_lottery_ticket_hypothesis=false"}),
            CLIAction::Run);
  auto structured = callback<ModelPruning>(0);
  ASSERT_NE(structured, nullptr);
  EXPECT_EQ(structured->pruning_fn(), "ln_structured");
  EXPECT_EQ(std::get<int64_t>(structured->options().amount.fixed()), 3);
  EXPECT_EQ(structured->options().pruning_dim, 0);
  EXPECT_EQ(structured->options().pruning_norm, 2.0);
  EXPECT_EQ(structured->options().verbose, 1);
  auto global = callback<ModelPruning>(1);
  ASSERT_NE(global, nullptr);
  EXPECT_EQ(std::get<double>(global->options().amount.fixed()), 0.25);
  EXPECT_TRUE(global->options().use_global_unstructured);

  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+=ModelPruning"}),
            "trainer.callbacks[0]: ModelPruning needs `pruning_fn`: l1_unstructured, "
            "random_unstructured, ln_structured or random_structured");
}

TEST_F(CLIComponentsTest, HelpListsTheClassesWithTheirInitArgs) {
  const std::string help = cli->help();
  EXPECT_NE(help.find("  --trainer.logger "), std::string::npos) << help;
  EXPECT_NE(help.find("bool|Logger|list[Logger]"), std::string::npos);
  EXPECT_NE(help.find("  --trainer.callbacks "), std::string::npos);
  EXPECT_NE(help.find("list[Callback]"), std::string::npos);
  for (const auto& name : callback_registry().names()) {
    EXPECT_NE(help.find("\n  " + name + "  "), std::string::npos) << name;
  }
  EXPECT_NE(help.find("\n  CSVLogger  "), std::string::npos);
  const auto early = help.find("\n  EarlyStopping  ");
  const auto patience = help.find("    patience ", early);
  ASSERT_NE(patience, std::string::npos);
  const std::string line = help.substr(patience, help.find('\n', patience) - patience);
  EXPECT_NE(line.find("int"), std::string::npos) << line;
  EXPECT_NE(line.find("default: 3"), std::string::npos) << line;
  const auto csv = help.find("\n  CSVLogger  ");
  const auto version = help.find("    version ", csv);
  ASSERT_NE(version, std::string::npos);
  EXPECT_NE(
      help.substr(version, help.find('\n', version) - version).find("int|null  default: null"),
      std::string::npos);
}

TEST_F(CLIComponentsTest, UnknownClassesListTheRegisteredOnesAndTheNearest) {
  const std::string c = write("c.yaml", "trainer:\n  callbacks:\n    - class_path: EarlyStoping\n");
  EXPECT_EQ(error_of({"fit", "--config", c}),
            "unknown callback class 'EarlyStoping' for trainer.callbacks[0] in config " + c +
                "; did you mean EarlyStopping? Registered callbacks: " + kCallbacks);
  EXPECT_EQ(
      error_of({"fit", "--trainer.callbacks+=ModelSummary",
                "--trainer.callbacks+=lightning.pytorch.callbacks.EarlyStoping"}),
      std::string("unknown callback class 'lightning.pytorch.callbacks.EarlyStoping' for "
                  "trainer.callbacks[1]; did you mean EarlyStopping? Registered callbacks: ") +
          kCallbacks);
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+=Xyzzy"}),
            std::string(
                "unknown callback class 'Xyzzy' for trainer.callbacks[0]; registered callbacks: ") +
                kCallbacks);
  // Every logger registered (CSVLogger, and TensorBoardLogger once it is there).
  const auto names = logger_registry().names();
  const std::string loggers = fmt::format("{}", fmt::join(names, ", "));
  EXPECT_EQ(error_of({"fit", "--trainer.logger=CSVLoger"}),
            "unknown logger class 'CSVLoger' for trainer.logger; did you mean CSVLogger? "
            "Registered loggers: " +
                loggers);
  logger_registry().add_planned("WandbLogger");
  EXPECT_EQ(error_of({"fit", "--trainer.logger=WandbLogger"}),
            "logger class 'WandbLogger' for trainer.logger is not available in this build of "
            "fulgur yet; registered loggers: " +
                loggers);
}

TEST_F(CLIComponentsTest, UnknownInitArgsNameTheNearestOfThatClass) {
  const std::string c =
      write("c.yaml",
            "trainer:\n  callbacks:\n"
            "    - {class_path: EarlyStopping, init_args: {monitor: x, patiense: 5}}\n");
  EXPECT_EQ(error_of({"fit", "--config", c}),
            "EarlyStopping has no init arg 'patiense' (trainer.callbacks[0] in config " + c +
                "); did you mean patience?");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+=LearningRateMonitor",
                      "--trainer.callbacks.patience=3"}),
            "LearningRateMonitor has no init arg 'patience' (trainer.callbacks[0]); its init args "
            "are logging_interval, log_momentum, log_weight_decay");
  EXPECT_EQ(error_of({"fit", "--trainer.logger=CSVLogger", "--trainer.logger.save_dri=x"}),
            "CSVLogger has no init arg 'save_dri' (trainer.logger); did you mean save_dir?");
}

TEST_F(CLIComponentsTest, BadValuesNameTheInitArgTheValueAndTheType) {
  const std::string c =
      write("c.yaml",
            "trainer:\n  callbacks:\n"
            "    - {class_path: ModelSummary}\n"
            "    - {class_path: EarlyStopping, init_args: {monitor: x, patience: five}}\n");
  EXPECT_EQ(error_of({"fit", "--config", c}),
            "invalid value 'five' for trainer.callbacks[1].init_args.patience in config " + c +
                ": expected int");
  EXPECT_EQ(
      error_of({"fit", "--trainer.callbacks+=EarlyStopping", "--trainer.callbacks.patience=5.5"}),
      "invalid value '5.5' for trainer.callbacks[0].init_args.patience: expected int");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+=GradientAccumulationScheduler",
                      "--trainer.callbacks.scheduling={0: x}"}),
            "invalid value '{0: x}' for trainer.callbacks[0].init_args.scheduling: expected "
            "{int: int} (bad value 'x' of key 0: expected int)");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+=Timer", "--trainer.callbacks.duration=1h"}),
            "invalid value '1h' for trainer.callbacks[0].init_args.duration: expected string|null "
            "(write DD:HH:MM:SS, e.g. 00:12:00:00)");
  EXPECT_EQ(error_of({"fit", "--trainer.logger=CSVLogger", "--trainer.logger.version=abc"}),
            "invalid value 'abc' for trainer.logger.init_args.version: expected int|null");
  EXPECT_EQ(
      error_of({"fit", "--trainer.callbacks+=EarlyStopping", "--trainer.callbacks.monitor=null"}),
      "invalid value null for trainer.callbacks[0].init_args.monitor: expected string (null is not "
      "allowed here)");
  const std::string nested =
      write("nested.yaml",
            "trainer:\n  callbacks:\n"
            "    - {class_path: EarlyStopping, init_args: {monitor: {a: {b: c}}}}\n");
  EXPECT_EQ(error_of({"fit", "--config", nested}),
            "invalid value for trainer.callbacks[0].init_args.monitor in config " + nested +
                ": expected a single value, or a list or map of single values, not deeper nesting");
}

TEST_F(CLIComponentsTest, MisshapenEntries) {
  const auto error_in = [&](const std::string& yaml) {
    return error_of({"fit", "--config", write("e.yaml", yaml)});
  };
  const std::string e = (dir / "e.yaml").string();
  EXPECT_EQ(error_in("trainer:\n  callbacks:\n    - init_args: {patience: 5}\n"),
            "trainer.callbacks[0] in config " + e +
                " has no class_path; write {class_path: NAME, init_args: {KEY: VALUE}}");
  EXPECT_EQ(error_in("trainer:\n  callbacks: [EarlyStopping]\n"),
            "trainer.callbacks[0] in config " + e +
                " must be a map {class_path: NAME, init_args: {KEY: VALUE}}, not 'EarlyStopping'");
  EXPECT_EQ(error_in("trainer:\n  callbacks:\n    - {class_path: ModelSummary}\n    - [1, 2]\n"),
            "trainer.callbacks[1] in config " + e +
                " must be a map {class_path: NAME, init_args: {KEY: VALUE}}, not a list");
  EXPECT_EQ(error_in("trainer:\n  logger: [CSVLogger]\n"),
            "trainer.logger in config " + e +
                " must be a map {class_path: NAME, init_args: {KEY: VALUE}}, not 'CSVLogger'");
  EXPECT_EQ(error_in("trainer:\n  callbacks:\n    - {class_path: EarlyStopping, patience: 5}\n"),
            "unknown key 'patience' in trainer.callbacks[0] in config " + e +
                "; an entry holds class_path and init_args (init args go under init_args)");
  EXPECT_EQ(
      error_in("trainer:\n  callbacks:\n    - {class_path: EarlyStopping, init_args: 5}\n"),
      "trainer.callbacks[0].init_args in config " + e + " must be a map {KEY: VALUE}, not '5'");
  EXPECT_EQ(error_in("trainer:\n  callbacks:\n    - {class_path: [EarlyStopping]}\n"),
            "trainer.callbacks[0].class_path in config " + e + " must be a class name, not a list");
}

TEST_F(CLIComponentsTest, CommandLineMistakes) {
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks.patience=5"}),
            "option --trainer.callbacks.patience needs a callback to configure; write "
            "--trainer.callbacks+=NAME before it");
  EXPECT_EQ(error_of({"fit", "--trainer.logger.save_dir=logs"}),
            "option --trainer.logger.save_dir needs a logger to configure; write "
            "--trainer.logger=NAME before it");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+"}),
            "option --trainer.callbacks+ needs a value; write --trainer.callbacks+=VALUE");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks+="}),
            "invalid value '' for --trainer.callbacks+: expected a callback class name");
  EXPECT_EQ(error_of({"fit", "--trainer.callbacks="}),
            "invalid value '' for --trainer.callbacks: expected list[Callback] (a callback class "
            "name or null)");
  EXPECT_EQ(error_of({"fit", "--trainer.callback+=EarlyStopping"}),
            "unknown option --trainer.callback+; did you mean --trainer.callbacks+?");
  EXPECT_EQ(error_of({"fit", "--trainer.max_epochs+=3"}),
            "option --trainer.max_epochs holds a single value; write --trainer.max_epochs=VALUE "
            "(+= only appends to lists)");
  // A constructor's complaint names the entry.
  EXPECT_EQ(
      error_of({"fit", "--trainer.callbacks+=ModelSummary", "--trainer.callbacks+=EarlyStopping"}),
      "trainer.callbacks[1]: EarlyStopping needs `monitor`: the name of a metric you log");
  EXPECT_EQ(
      error_of({"fit", "--trainer.callbacks+=Timer"}),
      "trainer.callbacks[0]: Timer needs `duration`: how long training may run, as DD:HH:MM:SS");
}

}  // namespace
}  // namespace fulgur
