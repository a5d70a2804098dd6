// ModelCheckpoint: default location and names, top-k by a monitored metric, save_last,
// version counters, weights-only, and the checkpoint's Lightning keys.
#include <gtest/gtest.h>

#include <filesystem>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/loggers/csv_logger.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

TEST(ModelCheckpoint, DefaultKeepsTheLatestUnderTheLoggersVersionDir) {
  const auto root = fresh_dir("mc_default");
  Calls calls;
  ScheduledLoss module(calls, {3, 2, 1});
  Trainer t(checkpointing_only({.max_epochs = 3, .default_root_dir = root}));
  t.fit(module);
  const auto dir = root + "/lightning_logs/version_0/checkpoints";
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"epoch=2-step=6.ckpt"});
  ASSERT_NE(t.checkpoint_callback(), nullptr);
  EXPECT_EQ(t.checkpoint_callback()->best_model_path(), dir + "/epoch=2-step=6.ckpt");
}

TEST(ModelCheckpoint, TopKByMonitorWithTemplateAndLast) {
  const auto root = fresh_dir("mc_topk");
  Calls calls;
  ScheduledLoss module(calls, {0.5, 0.25, 0.75, 0.125});
  auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
      .dirpath = root + "/ckpts",
      .filename = "{epoch}-{val_loss:.2f}",
      .monitor = "val_loss",
      .save_last = true,
      .save_top_k = 2});
  Trainer t(checkpointing_only({.logger = false, .callbacks = {mc}, .max_epochs = 4}));
  t.fit(module);
  EXPECT_EQ(files_in(root + "/ckpts"),
            (std::vector<std::string>{"epoch=1-val_loss=0.25.ckpt", "epoch=3-val_loss=0.12.ckpt",
                                      "last.ckpt"}));
  EXPECT_EQ(mc->best_model_path(), root + "/ckpts/epoch=3-val_loss=0.12.ckpt");
  EXPECT_DOUBLE_EQ(*mc->best_model_score(), 0.125);
  EXPECT_EQ(mc->best_k_models().size(), 2u);
  EXPECT_EQ(mc->last_model_path(), root + "/ckpts/last.ckpt");
}

TEST(ModelCheckpoint, MissingMonitorIsAClearError) {
  const auto root = fresh_dir("mc_missing");
  Calls calls;
  ScheduledLoss module(calls, {1, 1});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .monitor = "val_acc"});
  Trainer t(checkpointing_only({.logger = false, .callbacks = {mc}, .max_epochs = 1}));
  try {
    t.fit(module);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_NE(std::string(e.what()).find("ModelCheckpoint(monitor=\"val_acc\") could not find the "
                                         "monitored key in the logged metrics: [epoch, step, "
                                         "val_loss]"),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelCheckpoint, CollidingNamesGetVersionSuffixes) {
  const auto root = fresh_dir("mc_version");
  for (int run = 0; run < 2; ++run) {
    Calls calls;
    ScheduledLoss module(calls, {1});
    auto mc = std::make_shared<ModelCheckpoint>(
        ModelCheckpointOptions{.dirpath = root, .filename = "fixed"});
    Trainer t(checkpointing_only({.logger = false, .callbacks = {mc}, .max_epochs = 1}));
    t.fit(module);
  }
  EXPECT_EQ(files_in(root), (std::vector<std::string>{"fixed-v1.ckpt", "fixed.ckpt"}));
}

TEST(ModelCheckpoint, FileHasLightningKeysAndWeightsOnlyDropsTrainingState) {
  const auto root = fresh_dir("mc_keys");
  Calls calls;
  ScheduledLoss module(calls, {1});
  module.save_hyperparameters({{"lr", 0.01}, {"name", std::string("mlp")}});
  auto full = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .filename = "full"});
  Trainer t(checkpointing_only({.logger = false, .callbacks = {full}, .max_epochs = 1}));
  t.fit(module);
  auto c = TorchCheckpointIO().load_checkpoint(root + "/full.ckpt");
  for (const char* key : {"epoch", "global_step", "pytorch-lightning_version", "fulgur_version",
                          "state_dict", "loops", "callbacks", "hyper_parameters"}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  EXPECT_EQ(c.at("global_step").toInt(), 2);
  auto state = c.at("state_dict").toGenericDict();
  EXPECT_TRUE(state.contains("layer.weight"));
  EXPECT_TRUE(state.contains("layer.bias"));
  EXPECT_DOUBLE_EQ(c.at("hyper_parameters").toGenericDict().at("lr").toDouble(), 0.01);
  EXPECT_TRUE(c.at("callbacks").toGenericDict().contains(full->state_key()));

  t.save_checkpoint(root + "/weights.ckpt", /*weights_only=*/true);
  auto w = TorchCheckpointIO().load_checkpoint(root + "/weights.ckpt");
  EXPECT_TRUE(w.contains("state_dict"));
  EXPECT_FALSE(w.contains("callbacks"));
}

TEST(ModelCheckpoint, BadOptionsAreConfigErrors) {
  EXPECT_THROW(ModelCheckpoint({.mode = "biggest"}), ConfigError);
  EXPECT_THROW(ModelCheckpoint({.save_top_k = -2}), ConfigError);
  try {
    ModelCheckpoint({.save_top_k = 3});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "ModelCheckpoint(save_top_k=3, monitor=None) is not a valid configuration: there "
                 "is no quantity to rank the top k by; set monitor");
  }
}

TEST(ModelCheckpoint, FilenameTemplates) {
  ModelCheckpoint mc({.filename = "{epoch:03d}-{val_loss:.3f}-{missing}"});
  EXPECT_EQ(mc.format_checkpoint_name({{"epoch", 4}, {"val_loss", 0.12345}}),
            "epoch=004-val_loss=0.123-missing=0");
  ModelCheckpoint plain({.filename = "model-{epoch}", .auto_insert_metric_name = false});
  EXPECT_EQ(plain.format_checkpoint_name({{"epoch", 7}}, 2), "model-7-v2");
}

}  // namespace
}  // namespace fulgur::testing
