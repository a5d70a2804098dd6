// Trainer behaviour beyond the loops: results table, ckpt_path restore, manual optimization,
// failures (on_exception, logger status), option validation and the strategy's parts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/precision/precision.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

TEST(Trainer, TestPrintsLightningsResultsTable) {
  Calls calls;
  RecordingModule module(calls);
  Trainer t(quiet({}));
  ::testing::internal::CaptureStdout();
  auto metrics = t.test(module);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(metrics.count("test_loss"), 1u);
  EXPECT_NE(out.find("Test metric"), std::string::npos) << out;
  EXPECT_NE(out.find("DataLoader 0"), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("test_loss      {:.6g}", metrics.at("test_loss"))),
            std::string::npos)
      << out;
}

TEST(Trainer, PartsAreTheStrategysAndDefaultsResolve) {
  Trainer t(quiet({}));
  EXPECT_EQ(t.strategy().name(), "single_device");
  EXPECT_EQ(t.accelerator().name(), "cpu");
  EXPECT_EQ(t.precision_plugin().name(), "32-true");
  EXPECT_EQ(t.strategy().root_device(), torch::Device(torch::kCPU));
  EXPECT_EQ(&t.accelerator(), t.strategy().accelerator().get());
}

// Either may die first: the survivor forgets the other instead of reading a dead object
// (UBSan caught ~Trainer reading a destroyed Module before this was so).
TEST(Trainer, TrainerAndModuleUnlinkWhicheverDiesFirst) {
  Calls calls;
  Trainer outliving_trainer(quiet({.max_epochs = 1}));
  {
    RecordingModule module(calls);
    outliving_trainer.fit(module);
    EXPECT_EQ(outliving_trainer.module(), &module);
    EXPECT_EQ(module.trainer(), &outliving_trainer);
  }
  EXPECT_EQ(outliving_trainer.module(), nullptr);

  RecordingModule outliving_module(calls);
  {
    Trainer trainer(quiet({.max_epochs = 1}));
    trainer.fit(outliving_module);
    EXPECT_EQ(outliving_module.trainer(), &trainer);
  }
  EXPECT_EQ(outliving_module.trainer(), nullptr);
}

TEST(Trainer, DefaultCallbacksAndLogger) {
  const auto root = (fs::temp_directory_path() / "fulgur_trainer_defaults").string();
  Trainer t({.max_time = "00:00:01:00", .default_root_dir = root});
  std::vector<std::string> names;
  for (const auto& cb : t.callbacks()) names.push_back(cb->name());
  EXPECT_EQ(names, (std::vector<std::string>{"ProgressBar", "ModelSummary", "Timer",
                                             "ModelCheckpoint"}));
  ASSERT_EQ(t.loggers().size(), 1u);
  EXPECT_EQ(t.logger()->save_dir(), root);
}

TEST(Trainer, BadOptionsAreConfigErrorsNamingTheOption) {
  auto message = [](TrainerOptions o) {
    try {
      Trainer t(std::move(o));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({.accumulate_grad_batches = 0}),
            "accumulate_grad_batches=0 is not valid: it must be a positive integer");
  EXPECT_EQ(message({.max_time = "soon"}),
            "max_time=\"soon\" is not a duration; write it as \"DD:HH:MM:SS\", e.g. \"00:12:00:00\"");
  EXPECT_EQ(message({.val_check_interval = 1.5}),
            "val_check_interval=1.5 is not valid: a fraction must be in (0.0, 1.0], a count an "
            "int >= 1");
  EXPECT_EQ(message({.max_epochs = -2}),
            "max_epochs=-2 is not valid: use -1 (no limit) or a count >= 0");
  EXPECT_NE(message({.accelerator = "tpu2"}).find("accelerator=\"tpu2\""), std::string::npos);
  EXPECT_NE(message({.gradient_clip_algorithm = "l1"}).find("l1"), std::string::npos);
  auto mc = std::make_shared<ModelCheckpoint>();
  EXPECT_EQ(message({.callbacks = {mc}, .enable_checkpointing = false}),
            "Trainer was configured with enable_checkpointing=false but found a ModelCheckpoint "
            "in the callbacks list; remove it or set enable_checkpointing=true");
  auto bar = std::make_shared<ProgressBar>();
  EXPECT_EQ(message({.callbacks = {bar}, .enable_progress_bar = false}),
            "Trainer was configured with enable_progress_bar=false but found a ProgressBar in "
            "the callbacks list; remove it or set enable_progress_bar=true");
  EXPECT_EQ(message({.callbacks = {bar, std::make_shared<ProgressBar>()}}),
            "You added multiple progress bar callbacks to the Trainer, but only one progress bar "
            "is supported");
}

TEST(Trainer, CkptPathRestoresWeightsForTest) {
  const auto dir = fs::temp_directory_path() / ("fulgur_ckpt_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Calls calls;
  RecordingModule trained(calls);
  trained.with_scheduler = false;
  Trainer fit_trainer(quiet({.max_epochs = 2}));
  fit_trainer.fit(trained);
  const auto path = (dir / "model.ckpt").string();
  fit_trainer.save_checkpoint(path);
  const auto expected = fit_trainer.test(trained, nullptr, std::nullopt, false).at("test_loss");

  RecordingModule fresh(calls);
  Trainer test_trainer(quiet({}));
  const auto before = test_trainer.test(fresh, nullptr, std::nullopt, false).at("test_loss");
  const auto after = test_trainer.test(fresh, nullptr, path, false).at("test_loss");
  EXPECT_NE(before, expected);
  EXPECT_DOUBLE_EQ(after, expected);
  fs::remove_all(dir);
}

// Fits `module` for one step and saves a checkpoint of it at `path`.
std::string fit_one_step_and_save(RecordingModule& module, const fs::path& path) {
  Trainer t(quiet({.max_steps = 1}));
  t.fit(module);
  t.save_checkpoint(path.string());
  return path.string();
}

// Same layer names, different shape.
class WiderModule : public RecordingModule {
 public:
  explicit WiderModule(Calls& calls) : RecordingModule(calls) {
    replace_module("layer", torch::nn::Linear(4, 3));
  }
};

TEST(Trainer, MismatchedCheckpointIsACheckpointErrorListingTheDifferences) {
  const auto dir = fs::temp_directory_path() / ("fulgur_mismatch_" + std::to_string(::getpid()));
  Calls calls;
  RecordingModule small(calls);
  const auto path = fit_one_step_and_save(small, dir / "small.ckpt");
  WiderModule wide(calls);
  Trainer t2(quiet({}));
  try {
    t2.test(wide, nullptr, path, false);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + " does not fit the model: size mismatch for layer.weight (checkpoint 1x4, "
                     "model 3x4), layer.bias (checkpoint 1, model 3)");
  }
  try {
    t2.test(small, nullptr, (dir / "absent.ckpt").string(), false);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.ckpt"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// The same layer plus one the checkpoint does not have.
class ExtendedModule : public RecordingModule {
 public:
  explicit ExtendedModule(Calls& calls) : RecordingModule(calls) {
    register_module("head", torch::nn::Linear(1, 2));
  }
};

TEST(Trainer, StrictLoadingOffLoadsTheWeightsThatMatch) {
  const auto dir = fs::temp_directory_path() / ("fulgur_strict_" + std::to_string(::getpid()));
  Calls calls;
  RecordingModule small(calls);
  const auto path = fit_one_step_and_save(small, dir / "small.ckpt");

  ExtendedModule extended(calls);
  const auto head_before = extended.named_parameters()["head.weight"].clone();
  try {
    Trainer(quiet({})).test(extended, nullptr, path, false);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + " does not fit the model: missing keys: head.weight, head.bias; "
                     "set_strict_loading(false) on the Module loads what matches");
  }
  extended.set_strict_loading(false);
  Trainer(quiet({})).test(extended, nullptr, path, false);
  EXPECT_TRUE(torch::equal(extended.named_parameters()["layer.weight"],
                           small.named_parameters()["layer.weight"]));
  EXPECT_TRUE(torch::equal(extended.named_parameters()["head.weight"], head_before));

  // The other way round: the checkpoint's extra keys are ignored.
  const auto extended_path = fit_one_step_and_save(extended, dir / "extended.ckpt");
  RecordingModule plain(calls);
  EXPECT_THROW(Trainer(quiet({})).test(plain, nullptr, extended_path, false), CheckpointError);
  plain.set_strict_loading(false);
  Trainer(quiet({})).test(plain, nullptr, extended_path, false);
  EXPECT_TRUE(torch::equal(plain.named_parameters()["layer.weight"],
                           extended.named_parameters()["layer.weight"]));
  fs::remove_all(dir);
}

TEST(Trainer, BestAndLastNeedAFitFirst) {
  Calls calls;
  RecordingModule module(calls);
  Trainer t(quiet({}));
  EXPECT_THROW(t.test(module, nullptr, std::string("best"), false), ConfigError);
}

// Two optimizers stepped by hand, as in a GAN.
class ManualModule : public RecordingModule {
 public:
  explicit ManualModule(Calls& calls) : RecordingModule(calls, 8, 0) {
    set_automatic_optimization(false);
    other_ = register_module("other", torch::nn::Linear(4, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto opts = optimizers();
    EXPECT_EQ(opts.size(), 2u);
    auto loss = RecordingModule::training_step(batch, idx);
    opts[0]->zero_grad();
    manual_backward(loss);
    opts[0]->step();
    auto loss2 = torch::mse_loss(other_->forward(batch.data), batch.target);
    opts[1]->zero_grad();
    manual_backward(loss2);
    opts[1]->step();
    return loss;
  }
  OptimizerConfig configure_optimizers() override {
    auto params = named_parameters();
    auto a = std::make_shared<torch::optim::SGD>(
        std::vector<torch::Tensor>{params["layer.weight"], params["layer.bias"]},
        torch::optim::SGDOptions(0.01));
    auto b = std::make_shared<torch::optim::SGD>(other_->parameters(), torch::optim::SGDOptions(0.01));
    return OptimizerConfig({a, b});
  }

 private:
  torch::nn::Linear other_{nullptr};
};

TEST(Trainer, ManualOptimizationCountsEveryStepAndRunsBackwardHooks) {
  Calls calls;
  ManualModule module(calls);
  auto before = module.named_parameters()["other.weight"].clone();
  Trainer t(quiet({.max_epochs = 1}));
  t.fit(module);
  EXPECT_EQ(t.global_step(), 8);  // 4 batches × 2 optimizers
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "Module.backward"), 8);
  EXPECT_FALSE(torch::equal(before, module.named_parameters()["other.weight"]));
}

// Lightning reads manual optimization's global_step from its own counter
// (epoch_loop.manual_optimization.optim_step_progress), so fulgur saves it there.
TEST(Trainer, ManualOptimizationStepsAreSavedWhereLightningCountsThem) {
  const auto file = (std::filesystem::temp_directory_path() /
                     ("fulgur_manual_steps_" + std::to_string(::getpid()) + ".ckpt"))
                        .string();
  Calls calls;
  ManualModule module(calls);
  Trainer t(quiet({.max_epochs = 1}));
  t.fit(module);
  t.save_checkpoint(file);
  const auto fit_loop = TorchCheckpointIO()
                            .load_checkpoint(file)
                            .at("loops")
                            .toGenericDict()
                            .at("fit_loop")
                            .toGenericDict();
  auto total_steps = [](const c10::IValue& progress) {
    return progress.toGenericDict().at("total").toGenericDict().at("completed").toInt();
  };
  EXPECT_EQ(total_steps(fit_loop.at("epoch_loop.manual_optimization.optim_step_progress")), 8);
  const auto automatic = fit_loop.at("epoch_loop.automatic_optimization.optim_progress")
                             .toGenericDict()
                             .at("optimizer")
                             .toGenericDict();
  EXPECT_EQ(total_steps(automatic.at("step")), 0);

  Trainer resumed(quiet({.max_epochs = 2}));
  resumed.fit(module, nullptr, nullptr, file);
  EXPECT_EQ(resumed.global_step(), 16) << "8 restored, 8 in the second epoch";
  std::filesystem::remove(file);
}

TEST(Trainer, ManualOptimizationRefusesAccumulateGradBatches) {
  Calls calls;
  ManualModule module(calls);
  Trainer t(quiet({.max_epochs = 1, .accumulate_grad_batches = 2}));
  try {
    t.fit(module);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "Automatic gradient accumulation is not supported for manual optimization. "
                 "Remove accumulate_grad_batches=2 from the Trainer or switch to automatic "
                 "optimization");
  }
}

TEST(Trainer, MultipleOptimizersNeedManualOptimization) {
  Calls calls;
  ManualModule module(calls);
  module.set_automatic_optimization(true);
  Trainer t(quiet({.max_epochs = 1}));
  EXPECT_THROW(t.fit(module), MisconfigurationError);
}

class Failing : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  torch::Tensor training_step(Batch&, int64_t idx) override {
    if (idx == 1) throw std::runtime_error("boom");
    return torch::ones({1}, torch::requires_grad()).sum();
  }
};

class StatusLogger : public Logger {
 public:
  std::string name() const override { return "status"; }
  std::string version() const override { return "0"; }
  std::string save_dir() const override { return "."; }
  std::string log_dir() const override { return "."; }
  void log_metrics(const std::map<std::string, double>&, int64_t) override {}
  void log_hyperparams(const HParams&) override {}
  void finalize(const std::string& s) override { status = s; }
  std::string status;
};

class ExceptionSpy : public Callback {
 public:
  void on_exception(Trainer&, Module&, const std::exception& e) override { seen = e.what(); }
  std::string seen;
};

TEST(Trainer, AFailureReachesOnExceptionAndFinalizesLoggersAsFailed) {
  Calls calls;
  Failing module(calls);
  auto logger = std::make_shared<StatusLogger>();
  auto spy = std::make_shared<ExceptionSpy>();
  TrainerOptions o{.logger = logger, .callbacks = {spy}, .max_epochs = 1};
  o.enable_progress_bar = o.enable_model_summary = o.enable_checkpointing = false;
  Trainer t(o);
  EXPECT_THROW(t.fit(module), std::runtime_error);
  EXPECT_EQ(spy->seen, "boom");
  EXPECT_EQ(logger->status, "failed");
  EXPECT_EQ(t.status(), TrainerStatus::Interrupted);
}

// Records the largest gradient right after the Trainer's clipping ran.
class ClipProbe : public RecordingModule {
 public:
  explicit ClipProbe(Calls& calls) : RecordingModule(calls) { with_scheduler = false; }
  void configure_gradient_clipping(Optimizer& o, std::optional<double> v,
                                   std::optional<GradClipAlgorithm> a) override {
    RecordingModule::configure_gradient_clipping(o, v, a);
    for (auto& p : parameters()) largest = std::max(largest, p.grad().abs().max().item<double>());
  }
  double largest = 0;
};

TEST(Trainer, GradientClippingByValueBoundsEveryGradient) {
  Calls calls;
  ClipProbe probe(calls);
  Trainer t(quiet({.max_epochs = 1, .gradient_clip_val = 0.001,
                   .gradient_clip_algorithm = "value"}));
  t.fit(probe);
  EXPECT_GT(probe.largest, 0.0);
  EXPECT_LE(probe.largest, 0.001 + 1e-9);
}

}  // namespace
}  // namespace fulgur::testing
