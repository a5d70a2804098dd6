// ModelCheckpoint against Lightning's rules: deferred step saves before validation, ties
// resolved to the oldest checkpoint, the resumed-from checkpoint kept, no save before the first
// optimizer step, dirpath made absolute, `last` as Lightning 2.6 (after a save, as a link, at the
// end of a fit that saved nothing, never over another run's), filenames formatted as Python does,
// and the state's keys and types.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "scoped_env.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

TrainerOptions without_logger(TrainerOptions o) {
  o.logger = false;
  return checkpointing_only(std::move(o));
}

TEST(ModelCheckpointLightning, StepSaveBeforeValidationWaitsForTheMonitoredMetric) {
  const auto root = fresh_dir("mcl_defer");
  Calls calls;
  ScheduledLoss module(calls, {1.0, 0.5}, /*train_samples=*/8);  // 4 batches per epoch
  auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
      .dirpath = root, .monitor = "val_loss", .every_n_train_steps = 1});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  EXPECT_NO_THROW(t.fit(module));
  // Steps 1-4 run before any validation; from step 5 on val_loss=1.0 exists, later ties lose.
  EXPECT_EQ(files_in(root), std::vector<std::string>{"epoch=1-step=5.ckpt"});
}

TEST(ModelCheckpointLightning, TiesKeepTheOldestCheckpoint) {
  const auto root = fresh_dir("mcl_ties");
  Calls calls;
  ScheduledLoss module(calls, {1.0, 1.0, 0.5});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .monitor = "val_loss", .save_top_k = 2});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 3}));
  t.fit(module);
  // Lightning: kth = max(best_k_models) = the first of the tied 1.0s, so epoch 0's goes.
  EXPECT_EQ(files_in(root),
            (std::vector<std::string>{"epoch=1-step=4.ckpt", "epoch=2-step=6.ckpt"}));
  EXPECT_EQ(mc->best_model_path(), root + "/epoch=2-step=6.ckpt");
  auto state = mc->state_dict().toGenericDict();
  EXPECT_EQ(state.at("kth_best_model_path").toStringRef(), root + "/epoch=1-step=4.ckpt");
  EXPECT_DOUBLE_EQ(state.at("kth_value").toTensor().item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(state.at("current_score").toTensor().item<double>(), 0.5);
}

TEST(ModelCheckpointLightning, KthIsOnlyKnownOnceKAreKept) {
  const auto root = fresh_dir("mcl_kth");
  Calls calls;
  ScheduledLoss module(calls, {1.0});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .monitor = "val_loss", .save_top_k = 2});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 1}));
  t.fit(module);
  auto state = mc->state_dict().toGenericDict();
  EXPECT_EQ(state.at("kth_best_model_path").toStringRef(), "");
  EXPECT_TRUE(std::isinf(state.at("kth_value").toTensor().item<double>()));
}

TEST(ModelCheckpointLightning, TheCheckpointAFitResumedFromIsNotRemoved) {
  const auto root = fresh_dir("mcl_resume");
  {
    Calls calls;
    ScheduledLoss module(calls, {1, 1});
    auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{.dirpath = root});
    Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
    t.fit(module);
  }
  const auto resumed = root + "/epoch=1-step=4.ckpt";
  ASSERT_TRUE(fs::exists(resumed));
  Calls calls;
  ScheduledLoss module(calls, {1, 1, 1});
  auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{.dirpath = root});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 3}));
  t.fit(module, nullptr, nullptr, resumed);
  EXPECT_EQ(files_in(root),
            (std::vector<std::string>{"epoch=1-step=4.ckpt", "epoch=2-step=6.ckpt"}));
}

TEST(ModelCheckpointLightning, NothingIsSavedBeforeTheFirstOptimizerStep) {
  const auto root = fresh_dir("mcl_step0");
  Calls calls;
  ScheduledLoss module(calls, {1.0}, /*train_samples=*/8);
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .save_top_k = -1});
  Trainer t(without_logger({.callbacks = {mc},
                   .max_epochs = 1,
                   .limit_train_batches = 4,
                   .val_check_interval = 2,
                   .accumulate_grad_batches = 4}));
  t.fit(module);
  EXPECT_EQ(files_in(root), std::vector<std::string>{"epoch=0-step=1.ckpt"});
}

TEST(ModelCheckpointLightning, DirpathIsMadeAbsoluteAndExpandsHome) {
  const auto home = fresh_dir("mcl_home");
  ScopedEnv env({{"HOME", home}});
  ModelCheckpoint tilde({.dirpath = "~/ckpts"});
  Calls calls;
  ScheduledLoss module(calls, {1.0});
  Trainer t(without_logger({.max_epochs = 1}));
  tilde.setup(t, module, "fit");
  EXPECT_EQ(tilde.dirpath(), fs::weakly_canonical(home + "/ckpts").string());

  const std::string relative = "fulgur_mcl_rel_" + std::to_string(::getpid());
  ModelCheckpoint rel({.dirpath = relative});
  rel.setup(t, module, "fit");
  EXPECT_TRUE(fs::path(rel.dirpath()).is_absolute()) << rel.dirpath();
  EXPECT_EQ(rel.dirpath(), (fs::current_path() / relative).string());
}

TEST(ModelCheckpointLightning, StateLoadsTensorScoresAndKeepsBestPathWhenDirpathChanged) {
  const auto root = fresh_dir("mcl_state");
  Calls calls;
  ScheduledLoss module(calls, {1.0});
  Trainer t(without_logger({.max_epochs = 1}));
  ModelCheckpoint mc({.dirpath = root, .monitor = "val_loss", .save_top_k = 2});
  mc.setup(t, module, "fit");

  c10::impl::GenericDict best_k(c10::StringType::get(), c10::TensorType::get());
  best_k.insert(root + "/a.ckpt", torch::tensor(0.25));
  best_k.insert(root + "/b.ckpt", torch::tensor(0.5));
  c10::impl::GenericDict state(c10::StringType::get(), c10::AnyType::get());
  state.insert("dirpath", mc.dirpath());
  state.insert("best_model_path", root + "/a.ckpt");
  state.insert("best_model_score", torch::tensor(0.25));
  state.insert("best_k_models", best_k);
  state.insert("kth_best_model_path", root + "/b.ckpt");
  state.insert("kth_value", torch::tensor(0.5));
  EXPECT_NO_THROW(mc.load_state_dict(state));
  ASSERT_TRUE(mc.best_model_score().has_value());
  EXPECT_DOUBLE_EQ(*mc.best_model_score(), 0.25);
  EXPECT_EQ(mc.best_k_models().size(), 2u);
  EXPECT_DOUBLE_EQ(mc.best_k_models().at(root + "/b.ckpt"), 0.5);

  ModelCheckpoint moved({.dirpath = root + "/elsewhere", .monitor = "val_loss"});
  moved.setup(t, module, "fit");
  moved.load_state_dict(state);
  EXPECT_EQ(moved.best_model_path(), root + "/a.ckpt");
  EXPECT_TRUE(moved.best_k_models().empty());
  EXPECT_FALSE(moved.best_model_score().has_value());
}

TEST(ModelCheckpointLightning, StateHasLightningsKeys) {
  ModelCheckpoint mc({.monitor = "val_loss"});
  auto state = mc.state_dict().toGenericDict();
  for (const char* key : {"monitor", "best_model_score", "best_model_path", "current_score",
                          "dirpath", "best_k_models", "kth_best_model_path", "kth_value",
                          "last_model_path"}) {
    EXPECT_TRUE(state.contains(key)) << key;
  }
  EXPECT_TRUE(state.at("current_score").isNone());
  EXPECT_TRUE(state.at("kth_value").isTensor());
}

int64_t global_step_in(const std::string& path) {
  return TorchCheckpointIO().load_checkpoint(path).at("global_step").toInt();
}

TEST(ModelCheckpointLightning, AFitThatSavedNothingWritesLastAtItsEnd) {
  const auto root = fresh_dir("mcl_last_not_due");
  Calls calls;
  ScheduledLoss module(calls, {1.0, 1.0});
  auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
      .dirpath = root, .save_last = true, .save_top_k = 0, .every_n_epochs = 3});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  t.fit(module);
  EXPECT_EQ(files_in(root), std::vector<std::string>{"last.ckpt"});
  EXPECT_EQ(global_step_in(root + "/last.ckpt"), 4);
  // fast_dev_run saves nothing, not even at its end.
  const auto dev = fresh_dir("mcl_last_dev_run");
  Trainer quick(without_logger({.callbacks = {std::make_shared<ModelCheckpoint>(
                                    ModelCheckpointOptions{.dirpath = dev, .save_last = true})},
                                .fast_dev_run = FastDevRun(true)}));
  quick.fit(module);
  EXPECT_TRUE(files_in(dev).empty());
}

TEST(ModelCheckpointLightning, LastOnlyFollowsTheStepsACheckpointWasSavedAt) {
  // Lightning 2.6: at an epoch's end last.ckpt is written after a top-k save, so an epoch whose
  // val_loss is not in the top k leaves last.ckpt at the previous save.
  const auto root = fresh_dir("mcl_last_worse");
  Calls calls;
  ScheduledLoss module(calls, {0.5, 0.9});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .monitor = "val_loss", .save_last = true});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  t.fit(module);
  EXPECT_EQ(files_in(root), (std::vector<std::string>{"epoch=0-step=2.ckpt", "last.ckpt"}));
  EXPECT_EQ(global_step_in(root + "/last.ckpt"), 2);
  EXPECT_FALSE(fs::is_symlink(root + "/last.ckpt"));
}

TEST(ModelCheckpointLightning, SaveLastLinkPointsLastAtTheNewestCheckpoint) {
  const auto root = fresh_dir("mcl_last_link");
  Calls calls;
  ScheduledLoss module(calls, {0.5, 0.9, 0.3});
  auto mc = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
      .dirpath = root, .monitor = "val_loss", .save_last = SaveLast::link()});
  // The link's target after each epoch (read as the next one starts, and after the fit).
  std::vector<std::string> targets;
  struct ReadLink : Callback {
    std::string dir;
    std::vector<std::string>* targets;
    void on_train_epoch_start(Trainer& trainer, Module&) override {
      if (trainer.current_epoch() > 0) read();
    }
    void read() { targets->push_back(fs::read_symlink(dir + "/last.ckpt").string()); }
  };
  auto read_link = std::make_shared<ReadLink>();
  read_link->dir = root;
  read_link->targets = &targets;
  Trainer t(without_logger({.callbacks = {mc, read_link}, .max_epochs = 3}));
  t.fit(module);
  read_link->read();
  // Relative links, so the folder can move; epoch 1 (not in the top 1) relinks to epoch 0's.
  EXPECT_EQ(targets, (std::vector<std::string>{"epoch=0-step=2.ckpt", "epoch=0-step=2.ckpt",
                                               "epoch=2-step=6.ckpt"}));
  EXPECT_EQ(files_in(root), (std::vector<std::string>{"epoch=2-step=6.ckpt", "last.ckpt"}));
  EXPECT_EQ(global_step_in(root + "/last.ckpt"), 6);
  EXPECT_EQ(mc->last_model_path(), root + "/last.ckpt");
  // A fit resumed from the link reads the checkpoint it points at.
  ScheduledLoss resumed(calls, {0.5, 0.9, 0.3, 0.2});
  Trainer more(without_logger({.callbacks = {std::make_shared<ModelCheckpoint>(
                                   ModelCheckpointOptions{.dirpath = root,
                                                          .monitor = "val_loss",
                                                          .save_last = SaveLast::link()})},
                               .max_epochs = 4}));
  more.fit(resumed, nullptr, nullptr, std::string("last"));
  EXPECT_EQ(more.global_step(), 8);
  EXPECT_EQ(fs::read_symlink(root + "/last.ckpt").string(), "epoch=3-step=8.ckpt");
  // The fit resumed from the link, which stays; the checkpoint it pointed at left the top 1.
  EXPECT_EQ(files_in(root), (std::vector<std::string>{"epoch=3-step=8.ckpt", "last.ckpt"}));
}

TEST(ModelCheckpointLightning, AnotherRunsLastCheckpointIsKept) {
  const auto root = fresh_dir("mcl_last_versioned");
  {
    std::ofstream other(root + "/last.ckpt");
    other << "another run's";
  }
  Calls calls;
  ScheduledLoss module(calls, {1.0, 1.0});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .save_last = true});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  t.fit(module);
  EXPECT_EQ(files_in(root),
            (std::vector<std::string>{"epoch=1-step=4.ckpt", "last-v1.ckpt", "last.ckpt"}));
  EXPECT_EQ(fs::file_size(root + "/last.ckpt"), std::string("another run's").size());
  EXPECT_EQ(global_step_in(root + "/last-v1.ckpt"), 4);
  EXPECT_EQ(mc->last_model_path(), root + "/last-v1.ckpt");
  // Without the version counter, last.ckpt is overwritten, as Lightning.
  auto unversioned = std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
      .dirpath = root, .save_last = true, .save_top_k = 0, .enable_version_counter = false});
  Trainer again(without_logger({.callbacks = {unversioned}, .max_epochs = 1}));
  again.fit(module);
  EXPECT_EQ(global_step_in(root + "/last.ckpt"), 2);
}

TEST(ModelCheckpointLightning, VerbosePrintsEachMonitoredSaveOrMiss) {
  const auto root = fresh_dir("mcl_verbose");
  Calls calls;
  ScheduledLoss module(calls, {0.5, 0.9});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .monitor = "val_loss", .verbose = true});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  ::testing::internal::CaptureStdout();
  t.fit(module);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "Epoch 0, global step 2: 'val_loss' reached 0.50000 (best 0.50000), saving model "
                 "to '" + root + "/epoch=0-step=2.ckpt' as top 1\n"
                 "Epoch 1, global step 4: 'val_loss' was not in top 1\n");
}

TEST(ModelCheckpointLightning, SaveOnExceptionKeepsTheStepFitFailedAt) {
  const auto root = fresh_dir("mcl_on_exception");
  Calls calls;
  struct FailsAtStep3 : ScheduledLoss {
    using ScheduledLoss::ScheduledLoss;
    torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
      if (global_step() == 3) throw std::runtime_error("boom");
      return ScheduledLoss::training_step(batch, batch_idx);
    }
  };
  FailsAtStep3 module(calls, {1.0, 1.0});
  auto mc = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .save_last = true, .save_on_exception = true});
  Trainer t(without_logger({.callbacks = {mc}, .max_epochs = 2}));
  ::testing::internal::CaptureStdout();
  EXPECT_THROW(t.fit(module), std::runtime_error);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("An std::runtime_error was raised with message: boom, saved checkpoint to " +
                     root + "/epoch=1-step=3.ckpt"),
            std::string::npos)
      << out;
  EXPECT_EQ(files_in(root), (std::vector<std::string>{"epoch=0-step=2.ckpt", "epoch=1-step=3.ckpt",
                                                      "last.ckpt"}));
  EXPECT_EQ(global_step_in(root + "/last.ckpt"), 3);
  // Off by default.
  const auto off = fresh_dir("mcl_on_exception_off");
  FailsAtStep3 again(calls, {1.0, 1.0});
  Trainer t2(without_logger({.callbacks = {std::make_shared<ModelCheckpoint>(
                                 ModelCheckpointOptions{.dirpath = off})},
                             .max_epochs = 2}));
  EXPECT_THROW(t2.fit(again), std::runtime_error);
  EXPECT_EQ(files_in(off), std::vector<std::string>{"epoch=0-step=2.ckpt"});
}

TEST(ModelCheckpointLightning, AFitIntoANonEmptyDirectoryIsWarnedAbout) {
  const auto root = fresh_dir("mcl_not_empty");
  Calls calls;
  ScheduledLoss module(calls, {1.0});
  const auto fit = [&](int save_top_k) {
    Trainer t(without_logger({.callbacks = {std::make_shared<ModelCheckpoint>(
                                  ModelCheckpointOptions{.dirpath = root, .save_top_k = save_top_k})},
                              .max_epochs = 1}));
    ::testing::internal::CaptureStderr();
    t.fit(module);
    return ::testing::internal::GetCapturedStderr();
  };
  const std::string warning = "Checkpoint directory " + root + " exists and is not empty.";
  EXPECT_EQ(fit(1).find(warning), std::string::npos);  // fresh
  EXPECT_NE(fit(1).find(warning), std::string::npos);
  EXPECT_EQ(fit(0).find(warning), std::string::npos);  // saves nothing, so nothing to mix up
}

TEST(ModelCheckpointLightning, FilenameValuesAreFormattedAsPythonFloats) {
  ModelCheckpoint mc({.filename = "{epoch}-{val_loss}-{missing:d}"});
  EXPECT_EQ(mc.format_checkpoint_name({{"epoch", 2}, {"val_loss", 1.0}}),
            "epoch=2-val_loss=1.0-missing=0");
  EXPECT_EQ(mc.format_checkpoint_name({{"epoch", 2}, {"val_loss", 0.125}}),
            "epoch=2-val_loss=0.125-missing=0");
  ModelCheckpoint fixed({.filename = "{missing}-{missing2:.2f}"});
  EXPECT_EQ(fixed.format_checkpoint_name({}), "missing=0-missing2=0.00");
}

}  // namespace
}  // namespace fulgur::testing
