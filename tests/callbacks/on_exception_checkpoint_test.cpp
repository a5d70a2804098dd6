// OnExceptionCheckpoint: a failing fit leaves on_exception.ckpt at the last finished batch,
// which resumes; a fit that ends normally removes it.
#include <gtest/gtest.h>

#include <filesystem>

#include "fulgur/callbacks/on_exception_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

// Fails in training step number `fail_at` (0-based), as a NaN check or a bug would.
class FailingModule : public RecordingModule {
 public:
  FailingModule(Calls& calls, int fail_at) : RecordingModule(calls, 8), fail_at_(fail_at) {}
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    if (steps_++ == fail_at_) throw std::runtime_error("loss is NaN");
    return RecordingModule::training_step(batch, idx);
  }

 private:
  int fail_at_;
  int steps_ = 0;
};

class OnExceptionCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fulgur_onexc_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  TrainerOptions options(int64_t max_steps) const {
    return quiet({.callbacks = {std::make_shared<OnExceptionCheckpoint>(
                      OnExceptionCheckpointOptions{.dirpath = dir_.string()})},
                  .max_steps = max_steps});
  }
  fs::path dir_;
};

TEST_F(OnExceptionCheckpointTest, AFailedFitLeavesACheckpointThatResumes) {
  Calls calls;
  FailingModule module(calls, 5);
  Trainer trainer(options(10));
  EXPECT_THROW(trainer.fit(module), std::runtime_error);
  const auto path = dir_ / "on_exception.ckpt";
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(TorchCheckpointIO().load_checkpoint(path.string()).at("global_step").toInt(), 5);

  FailingModule resumed(calls, -1);
  Trainer again(options(8));
  again.fit(resumed, nullptr, nullptr, path.string());
  EXPECT_EQ(again.global_step(), 8);
  EXPECT_FALSE(fs::exists(path)) << "a fit that ends normally removes it";
}

TEST_F(OnExceptionCheckpointTest, AFitRerunWithoutCkptPathResumesFromIt) {
  // As Lightning: with an OnExceptionCheckpoint, fit's ckpt_path defaults to "last", whose
  // candidates include its file.
  Calls calls;
  FailingModule module(calls, 5);
  Trainer trainer(options(10));
  EXPECT_THROW(trainer.fit(module), std::runtime_error);
  ASSERT_TRUE(fs::exists(dir_ / "on_exception.ckpt"));

  Calls rerun_calls;
  FailingModule rerun(rerun_calls, -1);
  Trainer again(options(8));
  ::testing::internal::CaptureStderr();
  again.fit(rerun);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("fit() was called without ckpt_path and an OnExceptionCheckpoint is "
                     "configured: it resumes from the last checkpoint (ckpt_path=\"last\")"),
            std::string::npos)
      << err;
  EXPECT_EQ(again.global_step(), 8);
  EXPECT_EQ(std::count(rerun_calls.begin(), rerun_calls.end(), "Module.training_step"), 3);
  EXPECT_EQ(again.ckpt_path(), (dir_ / "on_exception.ckpt").string());
}

TEST_F(OnExceptionCheckpointTest, NeedsADirectory) {
  EXPECT_THROW(OnExceptionCheckpoint(OnExceptionCheckpointOptions{}), ConfigError);
}

}  // namespace
}  // namespace fulgur::testing
