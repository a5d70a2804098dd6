// validate/test/predict without a Module, as Lightning's `trainer.test(datamodule=dm)` after a
// fit: the previous run's Module with the best checkpoint of that fit (after Lightning's
// warning), and `set_ckpt_path` (Lightning's `trainer.ckpt_path = ...`) for the runs after it.
#include <gtest/gtest.h>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

std::string captured_warnings(const std::function<void()>& run) {
  ::testing::internal::CaptureStderr();
  run();
  return ::testing::internal::GetCapturedStderr();
}

// A fit of 2 epochs whose best val_loss is epoch 0's; last.ckpt is epoch 1's.
struct FittedRun : ::testing::Test {
  void SetUp() override {
    dir = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto options = quiet({.callbacks = {std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
                              .dirpath = dir, .monitor = "val_loss", .save_last = true})},
                          .max_epochs = 2});
    options.enable_checkpointing = true;
    trainer = std::make_unique<Trainer>(options);
    trainer->fit(module);
    best = dir + "/epoch=0-step=2.ckpt";
    ASSERT_EQ(trainer->checkpoint_callback()->best_model_path(), best);
  }
  torch::Tensor weight() { return module.named_parameters()["layer.weight"].detach().clone(); }
  torch::Tensor saved_weight(const std::string& path) {
    const auto checkpoint = trainer->checkpoint_io().load_checkpoint(path);
    return checkpoint.at("state_dict").toGenericDict().at("layer.weight").toTensor();
  }

  std::string dir, best;
  Calls calls;
  ScheduledLoss module{calls, {0.5, 0.9, 0.7}};  // the third for validate() after the fit
  std::unique_ptr<Trainer> trainer;
};

TEST_F(FittedRun, TestWithoutAModuleTestsTheBestCheckpointAfterLightningsWarning) {
  ASSERT_FALSE(torch::equal(weight(), saved_weight(best)));
  const std::string err = captured_warnings([&] { trainer->test(nullptr, std::nullopt, false); });
  EXPECT_NE(err.find("`.test()` was called without a model and without ckpt_path. The best model "
                     "of the previous `fit` call will be used. You can pass ckpt_path=\"best\" to "
                     "use the best model or ckpt_path=\"last\" to use the last model. If you pass "
                     "a value, this warning will be silenced."),
            std::string::npos)
      << err;
  EXPECT_EQ(trainer->ckpt_path(), best);
  EXPECT_TRUE(torch::equal(weight(), saved_weight(best)));
  // The Module's own test_dataloader() gave the data, as Lightning's without a DataModule.
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "Module.test_dataloader"), 1);
}

TEST_F(FittedRun, AnExplicitCkptPathIsLoadedWithoutWarning) {
  std::vector<torch::Tensor> predictions;
  const std::string err = captured_warnings(
      [&] { predictions = trainer->predict(nullptr, std::string("last")); });
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  EXPECT_EQ(trainer->ckpt_path(), dir + "/last.ckpt");
  EXPECT_TRUE(torch::equal(weight(), saved_weight(dir + "/last.ckpt")));
  EXPECT_EQ(predictions.size(), 1u);  // 2 samples, batches of 2
}

TEST_F(FittedRun, WithTheModuleTheCurrentWeightsAreEvaluated) {
  const auto before = weight();
  const std::string err =
      captured_warnings([&] { trainer->validate(module, nullptr, std::nullopt, false); });
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  EXPECT_FALSE(trainer->ckpt_path().has_value());
  EXPECT_TRUE(torch::equal(weight(), before));
}

TEST_F(FittedRun, SetCkptPathChoosesForTheRunsAfterItUntilOneIsPassed) {
  trainer->set_ckpt_path(std::string("last"));
  trainer->validate(module, nullptr, std::nullopt, false);
  EXPECT_EQ(trainer->ckpt_path(), dir + "/last.ckpt");
  trainer->test(module, nullptr, std::nullopt, false);  // still the user's choice
  EXPECT_EQ(trainer->ckpt_path(), dir + "/last.ckpt");
  // A run given its own: that one, with Lightning's warning, and the user's choice ends.
  const std::string err =
      captured_warnings([&] { trainer->validate(module, nullptr, best, false); });
  EXPECT_NE(err.find("`trainer.set_ckpt_path(\"last\")` was called but then you passed "
                     "`trainer.validate(ckpt_path=\"" + best + "\")`. The latter will be loaded."),
            std::string::npos)
      << err;
  EXPECT_EQ(trainer->ckpt_path(), best);
  trainer->validate(module, nullptr, std::nullopt, false);
  EXPECT_FALSE(trainer->ckpt_path().has_value());
}

TEST(ModelLessEvaluation, WithoutAnyPreviousModuleIsAMisconfiguration) {
  Trainer t(quiet({}));
  for (const char* fn : {"validate", "test", "predict"}) {
    try {
      if (std::string(fn) == "validate") t.validate();
      if (std::string(fn) == "test") t.test();
      if (std::string(fn) == "predict") t.predict();
      ADD_FAILURE() << fn << ": expected MisconfigurationError";
    } catch (const MisconfigurationError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("`Trainer.") + fn +
                                           "()` requires a Module when it hasn't been passed in "
                                           "a previous run");
    }
  }
}

TEST(ModelLessEvaluation, WithoutABestCheckpointTheErrorSaysSo) {
  Calls calls;
  RecordingModule module(calls);
  Trainer t(quiet({.max_steps = 1}));  // no ModelCheckpoint
  t.fit(module);
  ::testing::internal::CaptureStderr();
  try {
    t.test();
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "ckpt_path=\"best\" but no checkpoint was saved by a ModelCheckpoint in this "
                 "process; run fit first or pass the path of a .ckpt file");
  }
  ::testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace fulgur::testing
