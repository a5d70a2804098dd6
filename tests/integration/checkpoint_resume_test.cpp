// Checkpoints through the real binary: a fit stopped and resumed with --ckpt_path=last equals
// the uninterrupted fit (weights and logged losses, bitwise); SIGKILL at random moments never
// leaves a torn checkpoint and training still ends where the uninterrupted run ends; SIGTERM
// stops after the step with a checkpoint and a message.
#include <sys/stat.h>

#include <chrono>
#include <random>
#include <thread>

#include "fulgur/io/torch_checkpoint_io.h"
#include "integration/example_runner.h"
#include "integration/files_in.h"

namespace fulgur::testing {
namespace {

// Small, deterministic fits: 10 batches per epoch, a checkpoint (and last.ckpt) after every step.
std::vector<std::string> fit_args(const std::string& root, int64_t max_steps) {
  return {"fit",
          "--seed_everything=7",
          "--trainer.max_steps=" + std::to_string(max_steps),
          "--trainer.max_epochs=-1",
          "--trainer.limit_train_batches=10",
          "--trainer.limit_val_batches=2",
          "--trainer.log_every_n_steps=1",
          "--trainer.enable_progress_bar=false",
          "--trainer.enable_model_summary=false",
          "--trainer.default_root_dir=" + root,
          "--checkpoint.dirpath=" + root + "/ckpts",
          "--checkpoint.save_last=true",
          "--checkpoint.every_n_train_steps=1"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::string& extra) {
  args.push_back(extra);
  return args;
}

CheckpointDict load(const fs::path& path) { return TorchCheckpointIO().load_checkpoint(path.string()); }

void expect_same_weights(const fs::path& a, const fs::path& b) {
  const auto wa = load(a).at("state_dict").toGenericDict();
  const auto wb = load(b).at("state_dict").toGenericDict();
  ASSERT_EQ(wa.size(), wb.size());
  for (const auto& entry : wa) {
    EXPECT_TRUE(torch::equal(entry.value().toTensor(), wb.at(entry.key()).toTensor()))
        << entry.key().toStringRef();
  }
}

TEST_F(FashionMNISTExample, ResumedFitEqualsTheUninterruptedFitBitwise) {
  ASSERT_EQ(run(fit_args("straight", 25)).exit_code, 0) << read_file(dir / "stderr.txt");
  // Stop at step 13 (batch 3 of epoch 1), then resume from last.ckpt.
  ASSERT_EQ(run(fit_args("resumed", 13)).exit_code, 0) << read_file(dir / "stderr.txt");
  const RunResult resumed = run(with(fit_args("resumed", 25), "--ckpt_path=last"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;

  EXPECT_EQ(load(dir / "resumed/ckpts/last.ckpt").at("global_step").toInt(), 25);
  expect_same_weights(dir / "straight/ckpts/last.ckpt", dir / "resumed/ckpts/last.ckpt");
  // The logged losses: the first run's, then the resumed run's (a new log version), equal the
  // uninterrupted run's, value for value.
  const auto straight = column(dir / "straight/lightning_logs/version_0/metrics.csv", "train_loss");
  auto joined = column(dir / "resumed/lightning_logs/version_0/metrics.csv", "train_loss");
  const auto second = column(dir / "resumed/lightning_logs/version_1/metrics.csv", "train_loss");
  joined.insert(joined.end(), second.begin(), second.end());
  ASSERT_EQ(straight.size(), 25u);
  EXPECT_EQ(joined, straight);
}

// The inode of `path` (0 while it does not exist): last.ckpt is replaced by a rename after
// every step, so a new inode means the run has finished one more step.
ino_t inode_of(const fs::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_ino : 0;
}

// Waits (up to 30 s) until `path` is replaced; returns its new inode, or 0 on timeout.
ino_t next_inode(const fs::path& path, ino_t current) {
  for (int i = 0; i < 30'000; ++i) {
    if (const ino_t now = inode_of(path); now != current && now != 0) return now;
    ::usleep(1000);
  }
  return 0;
}

TEST_F(FashionMNISTExample, KilledAtRandomMomentsItResumesToTheSameResult) {
  constexpr int64_t kSteps = 80;
  ASSERT_EQ(run(fit_args("straight", kSteps)).exit_code, 0) << read_file(dir / "stderr.txt");

  // Each run is killed at a random moment of the step (and checkpoint write) after its second
  // step, timed on that run: about three steps a run on any machine, so the 20 kills land
  // while the fit runs (a fixed delay let a fast machine finish the fit within a few kills).
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> fraction_of_a_step(0.0, 1.5);
  const fs::path last_ckpt = dir / "crashing/ckpts/last.ckpt";
  int killed_while_training = 0;
  for (int kill = 0; kill < 20; ++kill) {
    const pid_t pid = spawn(with(fit_args("crashing", kSteps), "--ckpt_path=last"), "crashing");
    const ino_t first = next_inode(last_ckpt, inode_of(last_ckpt));
    const auto first_at = std::chrono::steady_clock::now();
    const ino_t second = first ? next_inode(last_ckpt, first) : 0;
    const auto step = std::chrono::steady_clock::now() - first_at;
    if (second == 0) ::kill(pid, SIGKILL);
    ASSERT_NE(second, 0u) << "run " << kill << " did not make two steps in 30 s";
    std::this_thread::sleep_for(step * fraction_of_a_step(random));
    ::kill(pid, SIGKILL);
    if (wait_for(pid) == 128 + SIGKILL) ++killed_while_training;
    // Every file under its final name is whole.
    for (const auto& file : files_in(dir / "crashing/ckpts", ".ckpt")) {
      EXPECT_NO_THROW(load(file)) << file << " after kill " << kill;
    }
  }
  EXPECT_GE(killed_while_training, 18) << "most kills should land while the fit runs";

  const RunResult last = run(with(fit_args("crashing", kSteps), "--ckpt_path=last"));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(load(dir / "crashing/ckpts/last.ckpt").at("global_step").toInt(), kSteps);
  expect_same_weights(dir / "straight/ckpts/last.ckpt", dir / "crashing/ckpts/last.ckpt");
  for (const auto& file : files_in(dir / "crashing/ckpts")) {
    EXPECT_EQ(file.filename().string().find(".tmp-"), std::string::npos)
        << "stale temporary left: " << file;
  }
}

TEST_F(FashionMNISTExample, SigtermStopsAfterTheStepWithACheckpointAndAMessage) {
  const pid_t pid = spawn(fit_args("term", 100000), "term");
  // Wait until training runs (a checkpoint exists), then ask it to stop.
  for (int i = 0; i < 600 && !fs::exists(dir / "term/ckpts/last.ckpt"); ++i) ::usleep(100'000);
  ASSERT_TRUE(fs::exists(dir / "term/ckpts/last.ckpt"));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_for(pid), 128 + SIGTERM);
  const std::string err = read_file(dir / "term.err");
  const fs::path hpc = dir / "term/hpc_ckpt_1.ckpt";
  EXPECT_NE(err.find("fashion-mnist: received SIGTERM: stopped after step "), std::string::npos)
      << err;
  EXPECT_NE(err.find("and saved term/hpc_ckpt_1.ckpt"), std::string::npos) << err;
  ASSERT_TRUE(fs::exists(hpc));
  const int64_t step = load(hpc).at("global_step").toInt();
  EXPECT_GT(step, 0);

  // --ckpt_path=last takes the newest of last.ckpt and hpc_ckpt_*.ckpt: two more steps.
  const RunResult resumed =
      run(with(fit_args("term", step + 2), "--ckpt_path=last"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(load(dir / "term/ckpts/last.ckpt").at("global_step").toInt(), step + 2);
}

}  // namespace
}  // namespace fulgur::testing
