// LightningCLI: subcommands, defaults, overrides, config files and their order, --print_config
// round trip, help, and the exact error texts. Nothing here trains.
#include "fulgur/cli/lightning_cli.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

struct ModelConfig {
  double lr = 1e-3;
  int64_t hidden = 128;
  double dropout = 0.25;
};
struct DataConfig {
  std::string data_dir = "/data";
  int64_t batch_size = 64;
};

class LightningCLITest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("fulgur_cli_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    cli = make_cli(model, data);
  }
  void TearDown() override { fs::remove_all(dir); }

  static std::unique_ptr<LightningCLI> make_cli(ModelConfig& m, DataConfig& d) {
    TrainerOptions defaults;
    defaults.max_epochs = 5;
    auto c = std::make_unique<LightningCLI>(LightningCLIOptions{
        .program = "prog", .description = "A test program.", .trainer_defaults = defaults});
    c->add_argument("model.lr", m.lr, "learning rate");
    c->add_argument("model.hidden", m.hidden, "hidden units");
    c->add_argument("model.dropout", m.dropout, "dropout");
    c->add_argument("data.data_dir", d.data_dir, "data folder");
    c->add_argument("data.batch_size", d.batch_size, "batch size");
    return c;
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

  fs::path dir;
  ModelConfig model;
  DataConfig data;
  std::unique_ptr<LightningCLI> cli;
};

TEST_F(LightningCLITest, DefaultsAreTheTrainersAndTheProgramsOwn) {
  ASSERT_EQ(cli->parse({"fit"}), CLIAction::Run);
  EXPECT_EQ(cli->subcommand(), "fit");
  const TrainerOptions& t = cli->trainer_options();
  EXPECT_EQ(t.max_epochs, 5);
  EXPECT_EQ(t.accelerator.name, "auto");
  EXPECT_EQ(t.strategy.name, "auto");
  EXPECT_EQ(std::get<std::string>(t.devices.value), "auto");
  EXPECT_EQ(t.num_nodes, 1);
  EXPECT_EQ(t.max_steps, -1);
  EXPECT_EQ(t.log_every_n_steps, 50);
  EXPECT_EQ(t.num_sanity_val_steps, 2);
  EXPECT_TRUE(t.limit_train_batches.is_fraction());
  EXPECT_TRUE(t.logger.enabled);
  EXPECT_TRUE(t.enable_checkpointing);
  EXPECT_EQ(t.default_root_dir, "");
  EXPECT_EQ(cli->seed_everything(), 42u);
  EXPECT_EQ(t.seed, 42u);
  EXPECT_FALSE(cli->ckpt_path().has_value());
  EXPECT_DOUBLE_EQ(model.lr, 1e-3);
  EXPECT_EQ(data.batch_size, 64);
}

TEST_F(LightningCLITest, BindsEveryScalarTrainerOption) {
  for (const char* name : {"accelerator",
                           "strategy",
                           "devices",
                           "num_nodes",
                           "precision",
                           "logger",
                           "fast_dev_run",
                           "max_epochs",
                           "min_epochs",
                           "max_steps",
                           "min_steps",
                           "max_time",
                           "limit_train_batches",
                           "limit_val_batches",
                           "limit_test_batches",
                           "limit_predict_batches",
                           "overfit_batches",
                           "val_check_interval",
                           "check_val_every_n_epoch",
                           "num_sanity_val_steps",
                           "log_every_n_steps",
                           "enable_checkpointing",
                           "enable_progress_bar",
                           "enable_model_summary",
                           "accumulate_grad_batches",
                           "gradient_clip_val",
                           "gradient_clip_algorithm",
                           "deterministic",
                           "benchmark",
                           "inference_mode",
                           "profiler",
                           "detect_anomaly",
                           "default_root_dir"}) {
    EXPECT_TRUE(cli->schema().contains(std::string("trainer.") + name)) << name;
  }
}

TEST_F(LightningCLITest, CommandLineOverridesInBothForms) {
  ASSERT_EQ(cli->parse({"test", "--trainer.max_epochs=3", "--trainer.accelerator", "cpu",
                        "--model.lr=0.01", "--data.batch_size", "32", "--seed_everything=7",
                        "--ckpt_path=/tmp/x.ckpt", "--trainer.precision=bf16-mixed",
                        "--trainer.devices=0,1", "--trainer.gradient_clip_val=0.5",
                        "--trainer.max_time=00:00:10:00", "--trainer.default_root_dir=/tmp/r"}),
            CLIAction::Run);
  const TrainerOptions& t = cli->trainer_options();
  EXPECT_EQ(cli->subcommand(), "test");
  EXPECT_EQ(t.max_epochs, 3);
  EXPECT_EQ(t.accelerator.name, "cpu");
  EXPECT_EQ(t.precision.name, "bf16-mixed");
  EXPECT_EQ(std::get<std::string>(t.devices.value), "0,1");
  EXPECT_EQ(t.gradient_clip_val, 0.5);
  EXPECT_EQ(t.max_time, "00:00:10:00");
  EXPECT_EQ(t.default_root_dir, "/tmp/r");
  EXPECT_DOUBLE_EQ(model.lr, 0.01);
  EXPECT_EQ(data.batch_size, 32);
  EXPECT_EQ(cli->seed_everything(), 7u);
  EXPECT_EQ(t.seed, 7u);
  EXPECT_EQ(cli->ckpt_path(), "/tmp/x.ckpt");
}

TEST_F(LightningCLITest, LimitsWithADotAreFractionsOtherwiseCounts) {
  cli->parse({"fit", "--trainer.limit_train_batches=60", "--trainer.limit_val_batches=0.5",
              "--trainer.limit_test_batches=1", "--trainer.limit_predict_batches=1.0",
              "--trainer.val_check_interval=100", "--trainer.overfit_batches=0.01"});
  const TrainerOptions& t = cli->trainer_options();
  ASSERT_FALSE(t.limit_train_batches.is_fraction());
  EXPECT_EQ(std::get<int64_t>(t.limit_train_batches.value), 60);
  ASSERT_TRUE(t.limit_val_batches.is_fraction());
  EXPECT_DOUBLE_EQ(std::get<double>(t.limit_val_batches.value), 0.5);
  ASSERT_FALSE(t.limit_test_batches.is_fraction());
  EXPECT_EQ(std::get<int64_t>(t.limit_test_batches.value), 1);
  ASSERT_TRUE(t.limit_predict_batches.is_fraction());
  EXPECT_DOUBLE_EQ(std::get<double>(t.limit_predict_batches.value), 1.0);
  ASSERT_FALSE(t.val_check_interval.is_fraction());
  EXPECT_EQ(std::get<int64_t>(t.val_check_interval.value), 100);
  ASSERT_TRUE(t.overfit_batches.is_fraction());
}

TEST_F(LightningCLITest, BoolsTakeAWordOrStandAlone) {
  cli->parse({"fit", "--trainer.enable_progress_bar=false", "--trainer.logger", "false",
              "--trainer.deterministic", "--trainer.enable_model_summary", "--model.lr=0.1"});
  const TrainerOptions& t = cli->trainer_options();
  EXPECT_FALSE(t.enable_progress_bar);
  EXPECT_FALSE(t.logger.enabled);
  EXPECT_EQ(t.deterministic, true);
  EXPECT_TRUE(t.enable_model_summary);
  EXPECT_DOUBLE_EQ(model.lr, 0.1);
}

TEST_F(LightningCLITest, NullUnsetsOptionalValues) {
  cli->parse(
      {"fit", "--trainer.max_epochs=null", "--seed_everything=None", "--trainer.precision=null"});
  EXPECT_FALSE(cli->trainer_options().max_epochs.has_value());
  EXPECT_FALSE(cli->seed_everything().has_value());
  EXPECT_FALSE(cli->trainer_options().seed.has_value());
  EXPECT_EQ(cli->trainer_options().precision.name, "");
}

TEST_F(LightningCLITest, FastDevRunAndDevicesForms) {
  cli->parse({"fit", "--trainer.fast_dev_run=true", "--trainer.devices=2"});
  EXPECT_EQ(cli->trainer_options().fast_dev_run.batches, 1);
  EXPECT_EQ(std::get<int>(cli->trainer_options().devices.value), 2);
  cli->parse({"fit", "--trainer.fast_dev_run=4", "--trainer.devices=-1"});
  EXPECT_EQ(cli->trainer_options().fast_dev_run.batches, 4);
  EXPECT_EQ(std::get<int>(cli->trainer_options().devices.value), -1);
}

// LightningCLI's SaveConfigCallback: last among the callbacks, holding what --print_config
// prints, which --config reads back to the same run; absent under fast_dev_run or when off.
TEST_F(LightningCLITest, RunsSaveTheirConfigUnlessFastDevRunOrTurnedOff) {
  ASSERT_EQ(cli->parse({"fit", "--model.hidden=32", "--trainer.max_epochs=3"}), CLIAction::Run);
  const auto& callbacks = cli->trainer_options().callbacks;
  ASSERT_EQ(callbacks.size(), 1u);
  auto saver = std::dynamic_pointer_cast<SaveConfigCallback>(callbacks.back());
  ASSERT_NE(saver, nullptr);
  EXPECT_EQ(saver->config(), cli->config_yaml());
  EXPECT_EQ(saver->options().config_filename, "config.yaml");
  EXPECT_FALSE(saver->options().overwrite);

  ModelConfig m2;
  DataConfig d2;
  auto again = make_cli(m2, d2);
  ASSERT_EQ(again->parse({"fit", "--config", write("saved.yaml", saver->config())}),
            CLIAction::Run);
  EXPECT_EQ(m2.hidden, 32);
  EXPECT_EQ(again->trainer_options().max_epochs, 3);
  EXPECT_EQ(again->config_yaml(), saver->config());

  cli->parse({"test", "--trainer.fast_dev_run=true"});
  EXPECT_TRUE(cli->trainer_options().callbacks.empty());

  TrainerOptions defaults;
  auto keep = std::make_shared<Callback>();
  defaults.callbacks = {keep};
  LightningCLI custom({.trainer_defaults = defaults,
                       .save_config_kwargs = {.config_filename = "run.yaml", .overwrite = true}});
  custom.parse({"validate"});
  ASSERT_EQ(custom.trainer_options().callbacks.size(), 2u);
  EXPECT_EQ(custom.trainer_options().callbacks[0], keep);
  saver = std::dynamic_pointer_cast<SaveConfigCallback>(custom.trainer_options().callbacks[1]);
  ASSERT_NE(saver, nullptr);
  EXPECT_EQ(saver->options().config_filename, "run.yaml");
  EXPECT_TRUE(saver->options().overwrite);

  LightningCLI off({.trainer_defaults = defaults, .save_config_callback = false});
  off.parse({"fit"});
  ASSERT_EQ(off.trainer_options().callbacks.size(), 1u);
  EXPECT_EQ(off.trainer_options().callbacks[0], keep);
}

TEST_F(LightningCLITest, ConfigFilesMergeInOrderAndTheCommandLineWins) {
  const std::string a = write("a.yaml",
                              "trainer:\n  max_epochs: 7\n  limit_val_batches: 0.5\n"
                              "model:\n  lr: 0.02\n  hidden: 64\nseed_everything: 1\n");
  const std::string b = write("b.yaml", "trainer: {max_epochs: 9}\nmodel:\n  hidden: 32\n");
  // The key comes before the configs on the line and still wins.
  cli->parse({"fit", "--model.hidden=16", "--config", a, "--config=" + b});
  const TrainerOptions& t = cli->trainer_options();
  EXPECT_EQ(t.max_epochs, 9);                                          // b over a
  EXPECT_DOUBLE_EQ(std::get<double>(t.limit_val_batches.value), 0.5);  // only in a
  EXPECT_DOUBLE_EQ(model.lr, 0.02);                                    // only in a
  EXPECT_EQ(model.hidden, 16);                                         // command line over both
  EXPECT_EQ(cli->seed_everything(), 1u);
  EXPECT_EQ(cli->config_files(), (std::vector<std::string>{a, b}));
}

TEST_F(LightningCLITest, DeviceListsInYamlBecomeIdLists) {
  const std::string c = write("c.yaml", "trainer:\n  devices: [0, 1]\n");
  cli->parse({"fit", "--config", c});
  EXPECT_EQ(std::get<std::vector<int>>(cli->trainer_options().devices.value),
            (std::vector<int>{0, 1}));
}

TEST_F(LightningCLITest, PrintConfigRoundTrips) {
  ASSERT_EQ(cli->parse({"fit", "--print_config", "--trainer.max_epochs=2",
                        "--trainer.limit_train_batches=60", "--trainer.limit_val_batches=0.25",
                        "--trainer.devices=0,1", "--trainer.precision=16-mixed",
                        "--trainer.default_root_dir=/tmp/out dir", "--model.lr=3e-4",
                        "--data.data_dir=", "--ckpt_path=last", "--trainer.fast_dev_run=3"}),
            CLIAction::PrintConfig);
  const std::string printed = cli->config_yaml();
  EXPECT_EQ(printed.rfind("# fulgur==", 0), 0u) << printed;
  EXPECT_NE(printed.find("seed_everything: 42\ntrainer:\n  accelerator: auto\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("  max_epochs: 2\n"), std::string::npos);
  EXPECT_NE(printed.find("  limit_train_batches: 60\n"), std::string::npos);
  EXPECT_NE(printed.find("  limit_val_batches: 0.25\n"), std::string::npos);
  EXPECT_NE(printed.find("  limit_test_batches: 1.0\n"), std::string::npos);
  EXPECT_NE(printed.find("  min_epochs: null\n"), std::string::npos);
  EXPECT_NE(printed.find("model:\n  lr: 0.0003\n  hidden: 128\n  dropout: 0.25\n"),
            std::string::npos)
      << printed;
  // ckpt_path stays last, after the program's own sections.
  EXPECT_NE(printed.find("\nckpt_path: last\n"), std::string::npos) << printed;
  EXPECT_EQ(printed.substr(printed.size() - std::string("ckpt_path: last\n").size()),
            "ckpt_path: last\n");

  const std::string file = write("printed.yaml", printed);
  ModelConfig m2;
  DataConfig d2;
  auto again = make_cli(m2, d2);
  ASSERT_EQ(again->parse({"fit", "--config", file, "--print_config"}), CLIAction::PrintConfig);
  EXPECT_EQ(again->config_yaml(), printed);
  EXPECT_EQ(d2.data_dir, "");
  EXPECT_EQ(again->trainer_options().default_root_dir, "/tmp/out dir");
  EXPECT_EQ(again->trainer_options().fast_dev_run.batches, 3);
  EXPECT_FALSE(again->trainer_options().limit_train_batches.is_fraction());
}

TEST_F(LightningCLITest, PrintConfigNeedsNoSubcommand) {
  EXPECT_EQ(cli->parse({"--print_config"}), CLIAction::PrintConfig);
  EXPECT_NE(cli->config_yaml().find("max_epochs: 5"), std::string::npos);
}

TEST_F(LightningCLITest, HelpWinsAndListsEveryKeyWithTypeAndDefault) {
  EXPECT_EQ(cli->parse({"fit", "--trainer.max_epoch=3", "--help"}), CLIAction::PrintHelp);
  EXPECT_EQ(cli->parse({"-h"}), CLIAction::PrintHelp);
  const std::string help = cli->help();
  EXPECT_EQ(help.rfind("usage: prog {fit,validate,test,predict}", 0), 0u) << help;
  EXPECT_NE(help.find("A test program."), std::string::npos);
  for (const auto& option : cli->schema().options()) {
    EXPECT_NE(help.find("--" + option.key + " "), std::string::npos) << option.key;
  }
  const auto line = help.find("--trainer.max_epochs ");
  const std::string max_epochs = help.substr(line, help.find('\n', line) - line);
  EXPECT_NE(max_epochs.find("int|null"), std::string::npos) << max_epochs;
  EXPECT_NE(max_epochs.find("default: 5"), std::string::npos) << max_epochs;
}

TEST_F(LightningCLITest, UnknownKeySuggestsTheNearest) {
  EXPECT_EQ(error_of({"fit", "--trainer.max_epoch=3"}),
            "unknown option --trainer.max_epoch; did you mean --trainer.max_epochs?");
  EXPECT_EQ(error_of({"fit", "--trainer.max_epoch", "3"}),
            "unknown option --trainer.max_epoch; did you mean --trainer.max_epochs?");
  EXPECT_EQ(error_of({"fit", "--max_epochs=3"}),
            "unknown option --max_epochs; did you mean --trainer.max_epochs?");
  EXPECT_EQ(error_of({"fit", "--model.lrr=0.1"}),
            "unknown option --model.lrr; did you mean --model.lr?");
  const std::string c = write("bad.yaml", "trainer:\n  max_epoch: 3\n");
  EXPECT_EQ(error_of({"fit", "--config", c}), "unknown option trainer.max_epoch in config " + c +
                                                  "; did you mean trainer.max_epochs?");
}

TEST_F(LightningCLITest, BadValuesNameKeyValueAndType) {
  EXPECT_EQ(error_of({"fit", "--trainer.max_epochs=three"}),
            "invalid value 'three' for --trainer.max_epochs: expected int|null");
  EXPECT_EQ(error_of({"fit", "--trainer.enable_checkpointing=perhaps"}),
            "invalid value 'perhaps' for --trainer.enable_checkpointing: expected bool");
  EXPECT_EQ(error_of({"fit", "--data.batch_size=1.5"}),
            "invalid value '1.5' for --data.batch_size: expected int");
  EXPECT_EQ(error_of({"fit", "--trainer.limit_val_batches=2.5"}),
            "invalid value '2.5' for --trainer.limit_val_batches: expected int|float (a fraction "
            "must lie in [0.0, 1.0]; write an integer for a count)");
  EXPECT_EQ(error_of({"fit", "--trainer.devices=gpu"}),
            "invalid value 'gpu' for --trainer.devices: expected int|string (use \"auto\", a "
            "count (-1 = all) or device ids such as 0,1 or [0, 1])");
  EXPECT_EQ(error_of({"fit", "--trainer.accelerator="}),
            "invalid value '' for --trainer.accelerator: expected string|null (give a name or "
            "null)");
  const std::string c = write("bad.yaml", "model:\n  lr: fast\n");
  EXPECT_EQ(error_of({"fit", "--config", c}),
            "invalid value 'fast' for model.lr in config " + c + ": expected float");
}

TEST_F(LightningCLITest, UsageMistakes) {
  EXPECT_EQ(error_of({}),
            "missing subcommand; choose one of fit, validate, test, predict "
            "(e.g. `prog fit`)");
  EXPECT_EQ(error_of({"fitt"}), "unknown subcommand 'fitt'; did you mean fit?");
  EXPECT_EQ(error_of({"tset"}), "unknown subcommand 'tset'; did you mean test?");
  EXPECT_EQ(error_of({"xyzzyplugh"}),
            "unknown subcommand 'xyzzyplugh'; choose one of fit, validate, test, predict");
  EXPECT_EQ(error_of({"fit", "test"}),
            "unexpected argument 'test' after subcommand fit; options are written --key=value");
  EXPECT_EQ(error_of({"fit", "-x"}), "unknown option -x; options are written --key=value");
  EXPECT_EQ(error_of({"fit", "--trainer.max_epochs"}),
            "option --trainer.max_epochs needs a value (int|null); write "
            "--trainer.max_epochs=VALUE");
  EXPECT_EQ(error_of({"fit", "--model.lr", "--trainer.max_epochs=3"}),
            "option --model.lr needs a value (float); write --model.lr=VALUE");
  EXPECT_EQ(error_of({"fit", "--config"}),
            "option --config needs a value: the path of a YAML file");
  const std::string missing = (dir / "nope.yaml").string();
  EXPECT_EQ(error_of({"fit", "--config", missing}),
            "cannot read config file " + missing + ": No such file or directory");
}

TEST_F(LightningCLITest, NegativeNumbersAreValuesNotOptions) {
  cli->parse({"fit", "--trainer.max_steps", "-1", "--trainer.num_sanity_val_steps", "-1"});
  EXPECT_EQ(cli->trainer_options().max_steps, -1);
  EXPECT_EQ(cli->trainer_options().num_sanity_val_steps, -1);
}

TEST_F(LightningCLITest, RunSeedsTorch) {
  cli->parse({"fit", "--seed_everything=123"});
  const auto first = torch::rand({4});
  cli->parse({"fit", "--seed_everything=123"});
  EXPECT_TRUE(torch::equal(first, torch::rand({4})));
}

}  // namespace
}  // namespace fulgur
