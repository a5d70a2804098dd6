// What a ckpt_path restores, against Lightning 2.6: validate/test/predict restore the callbacks'
// state too (not for a weights-only file); a fit resumed past max_epochs is an error; "last" is
// the newest last*.ckpt of every ModelCheckpoint.
#include <gtest/gtest.h>

#include <filesystem>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "scoped_env.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

// Saves {"x": x} and records what reaches it on a restore.
class Probe : public Callback {
 public:
  explicit Probe(int64_t x) : x(x) {}
  std::string name() const override { return "Probe"; }
  c10::IValue state_dict() override {
    c10::Dict<std::string, int64_t> state;
    state.insert("x", x);
    return state;
  }
  void load_state_dict(const c10::IValue& state) override {
    x = state.toGenericDict().at("x").toInt();
  }
  void on_load_checkpoint(Trainer&, Module&, const CheckpointDict&) override { ++loads; }
  int64_t x;
  int loads = 0;
};

TEST(CheckpointRestore, EvaluatingFromACheckpointRestoresTheCallbacks) {
  const auto dir = fresh_dir("restore_callbacks");
  Calls calls;
  RecordingModule module(calls);
  Trainer fit(quiet({.callbacks = {std::make_shared<Probe>(5)}, .max_steps = 1}));
  fit.fit(module);
  fit.save_checkpoint(dir + "/full.ckpt");
  fit.save_checkpoint(dir + "/weights.ckpt", /*weights_only=*/true);

  for (const char* stage : {"validate", "test", "predict"}) {
    auto probe = std::make_shared<Probe>(0);
    Trainer t(quiet({.callbacks = {probe}}));
    const std::string full = dir + "/full.ckpt";
    if (std::string(stage) == "validate") t.validate(module, nullptr, full, false);
    if (std::string(stage) == "test") t.test(module, nullptr, full, false);
    if (std::string(stage) == "predict") t.predict(module, nullptr, full);
    EXPECT_EQ(probe->x, 5) << stage;
    EXPECT_EQ(probe->loads, 1) << stage;
  }
  // A state no callback claims: Lightning's warning naming it.
  Trainer without(quiet({}));
  ::testing::internal::CaptureStderr();
  without.validate(module, nullptr, dir + "/full.ckpt", false);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Be aware that when using `ckpt_path`, callbacks used to create the "
                     "checkpoint need to be provided during `Trainer` instantiation. Please add "
                     "the following callbacks: [Probe]."),
            std::string::npos)
      << err;
  // A weights-only checkpoint holds no callback state: no callback hears of it.
  auto probe = std::make_shared<Probe>(0);
  Trainer t(quiet({.callbacks = {probe}}));
  t.validate(module, nullptr, dir + "/weights.ckpt", false);
  EXPECT_EQ(probe->x, 0);
  EXPECT_EQ(probe->loads, 0);
}

TEST(CheckpointRestore, TestingFromACheckpointRestoresItsBestPathForBest) {
  const auto dir = fresh_dir("restore_best");
  Calls calls;
  ScheduledLoss module(calls, {0.5, 0.9});
  auto options = [&] {
    auto o = quiet({.callbacks = {std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
                        .dirpath = dir, .monitor = "val_loss", .save_last = true})},
                    .max_epochs = 2});
    o.enable_checkpointing = true;
    return o;
  };
  Trainer fit(options());
  fit.fit(module);
  // A new Trainer whose new ModelCheckpoint learns the best path from the checkpoint it tests.
  Trainer later(options());
  later.test(module, nullptr, dir + "/last.ckpt", false);
  EXPECT_EQ(later.checkpoint_callback()->best_model_path(), dir + "/epoch=0-step=2.ckpt");
  EXPECT_NO_THROW(later.test(module, nullptr, std::string("best"), false));
}

TEST(CheckpointRestore, AnEmptyCkptPathIsAConfigError) {
  Calls calls;
  RecordingModule module(calls);
  Trainer t(quiet({}));
  try {
    t.test(module, nullptr, std::string(), false);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "ckpt_path is empty: pass the path of a .ckpt file, \"best\", \"last\" or \"hpc\"");
  }
}

TEST(CheckpointRestore, ResumingPastMaxEpochsIsAnError) {
  const auto dir = fresh_dir("restore_max_epochs");
  Calls calls;
  RecordingModule module(calls);
  Trainer three(quiet({.max_epochs = 3}));
  three.fit(module);
  three.save_checkpoint(dir + "/epoch3.ckpt");
  Trainer two(quiet({.max_epochs = 2}));
  try {
    two.fit(module, nullptr, nullptr, dir + "/epoch3.ckpt");
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "You restored a checkpoint with current_epoch=3, but you have set "
                 "Trainer(max_epochs=2).");
  }
  // Equal is fine: nothing left to train.
  Trainer same(quiet({.max_epochs = 3}));
  EXPECT_NO_THROW(same.fit(module, nullptr, nullptr, dir + "/epoch3.ckpt"));
  EXPECT_EQ(same.global_step(), three.global_step());
}

TEST(CheckpointRestore, LastIsTheNewestLastCheckpointOfEveryModelCheckpoint) {
  const auto root = fresh_dir("restore_last");
  Calls calls;
  ScheduledLoss module(calls, {1.0, 1.0, 1.0});
  // The first keeps no last; its file names merely contain "last". The second keeps last.ckpt.
  auto options = [&] {
    auto o = quiet({.callbacks = {std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
                                      .dirpath = root + "/a", .filename = "{epoch}-blast"}),
                                  std::make_shared<ModelCheckpoint>(ModelCheckpointOptions{
                                      .dirpath = root + "/b", .save_last = true,
                                      .every_n_train_steps = 1})},
                    .max_epochs = 3});
    o.enable_checkpointing = true;
    return o;
  };
  Trainer first(options());
  first.fit(module, nullptr, nullptr, std::nullopt);
  ASSERT_EQ(files_in(root + "/a"), std::vector<std::string>{"epoch=2-blast.ckpt"});
  fs::last_write_time(root + "/a/epoch=2-blast.ckpt",
                      fs::last_write_time(root + "/b/last.ckpt") + std::chrono::seconds(10));
  Trainer again(options());
  again.fit(module, nullptr, nullptr, std::string("last"));
  EXPECT_EQ(again.ckpt_path(), root + "/b/last.ckpt");
}

TEST(CheckpointRestore, HpcIsTheLargestNumberAndASlurmFitResumesFromIt) {
  const auto root = fresh_dir("restore_hpc");
  Calls calls;
  RecordingModule module(calls, 8);
  Trainer first(quiet({.max_steps = 2, .default_root_dir = root}));
  first.fit(module);
  first.save_checkpoint(root + "/hpc_ckpt_10.ckpt");
  first.save_checkpoint(root + "/hpc_ckpt_9.ckpt");  // newer, but a smaller number
  Trainer chosen(quiet({.max_steps = 2, .default_root_dir = root}));
  chosen.fit(module, nullptr, nullptr, std::string("hpc"));
  EXPECT_EQ(chosen.ckpt_path(), root + "/hpc_ckpt_10.ckpt");
  // A requeued SLURM job resumes without being told.
  const ScopedEnv slurm({{"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"},
                         {"SLURM_NODEID", "0"}, {"SLURM_JOB_NAME", "train"}});
  Trainer requeued(quiet({.max_steps = 2, .default_root_dir = root}));
  requeued.fit(module);
  EXPECT_EQ(requeued.ckpt_path(), root + "/hpc_ckpt_10.ckpt");
  // As Lightning's, every stage does (even given a Module).
  requeued.test(module, nullptr, std::nullopt, false);
  EXPECT_EQ(requeued.ckpt_path(), root + "/hpc_ckpt_10.ckpt");
}

}  // namespace
}  // namespace fulgur::testing
