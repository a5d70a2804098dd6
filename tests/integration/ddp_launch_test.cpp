// The Trainer with strategy "ddp" and fulgur's own launcher: one command starts every rank
// (devices=2 runs the program twice), ranks train as one (weights equal to one process with the
// double batch, sync_dist values are the true means, validation counts each sample once, one
// log and one set of checkpoints), two "nodes" meet on loopback, and a failing, killed or
// interrupted rank brings the whole job down quickly with no process left behind.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fulgur/environments/lightning_environment.h"
#include "integration/child_process.h"
#include "integration/files_in.h"
#include "project_paths.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ChildProcess;
using testing::files_in;
using testing::key_values;
using testing::process_alive;
using Clock = std::chrono::steady_clock;
using Env = std::map<std::string, std::optional<std::string>>;

const std::string kWorker = testing::bin_dir() + "/ddp-trainer-worker";

std::vector<double> numbers(const std::string& csv) {
  std::vector<double> out;
  std::stringstream in(csv);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

double max_abs_diff(const std::string& a, const std::string& b) {
  const auto x = numbers(a), y = numbers(b);
  EXPECT_EQ(x.size(), y.size());
  double diff = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) diff = std::max(diff, std::abs(x[i] - y[i]));
  return diff;
}

class DDPLaunchTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(fs::exists(kWorker)) << kWorker << " was not built";
  }

  // One launch of the worker into <dir>/<name>, its output in <dir>/<log>.out and .err; no
  // launcher variables leak in from outside.
  std::unique_ptr<ChildProcess> launch(const std::string& name, std::vector<std::string> args,
                                       Env env = {}, std::string log = "") {
    if (log.empty()) log = name;
    const fs::path out_dir = dir_ / name;
    fs::create_directories(out_dir);
    std::vector<std::string> argv{kWorker, "--dir", out_dir.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* v : {"LOCAL_RANK", "RANK", "WORLD_SIZE", "NODE_RANK", "GROUP_RANK",
                          "MASTER_ADDR", "MASTER_PORT", "SLURM_NTASKS", "SLURM_JOB_NAME",
                          "OMPI_COMM_WORLD_SIZE"}) {
      env.try_emplace(v, std::nullopt);
    }
    return std::make_unique<ChildProcess>(argv, dir_ / (log + ".out"), dir_ / (log + ".err"),
                                          env);
  }
  std::map<std::string, std::string> rank_file(const std::string& name, int rank) const {
    return key_values(dir_ / name / ("rank" + std::to_string(rank) + ".txt"));
  }
  pid_t pid_of(const std::string& name, int rank) const {
    const auto values = rank_file(name, rank);
    return values.count("pid") ? std::stoi(values.at("pid")) : -1;
  }
  // Waits until every rank of `name` has started training.
  void await_training(const std::string& name, int ranks) const {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    for (int r = 0; r < ranks; ++r) {
      while (pid_of(name, r) < 0) {
        ASSERT_LT(Clock::now(), deadline) << "rank " << r << " never started training";
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
};

TEST_F(DDPLaunchTest, TwoRanksTrainLikeOneProcessWithTheDoubleBatch) {
  auto single = launch("single", {"--devices", "1", "--batch", "8"});
  ASSERT_EQ(single->wait(), 0) << single->err();
  auto ddp = launch("ddp", {"--devices", "2", "--batch", "4"});
  ASSERT_EQ(ddp->wait(), 0) << ddp->err();

  const auto one = rank_file("single", 0), r0 = rank_file("ddp", 0), r1 = rank_file("ddp", 1);
  EXPECT_EQ(r0.at("world_size"), "2");
  EXPECT_EQ(r1.at("world_size"), "2");
  EXPECT_NE(r0.at("pid"), r1.at("pid"));
  EXPECT_LE(max_abs_diff(r0.at("weights"), one.at("weights")), 1e-5);
  EXPECT_EQ(r0.at("weights"), r1.at("weights"));
  // Module::all_gather: stacked by rank; one process gets its tensor back unchanged. With
  // sync_grads rank r's gradient is (1 + 2) × its slice's weights [2r + 1, 2r + 2].
  EXPECT_EQ(one.at("gathered_shape"), "2");
  EXPECT_EQ(one.at("gathered"), "0,1");
  EXPECT_EQ(one.at("sync_grad"), "1,2");
  for (const auto& r : {r0, r1}) {
    EXPECT_EQ(r.at("gathered_shape"), "2,2");
    EXPECT_EQ(r.at("gathered"), "0,1,10,11");
  }
  EXPECT_EQ(r0.at("sync_grad"), "3,6");
  EXPECT_EQ(r1.at("sync_grad"), "9,12");
  // sync_dist: the mean over ranks of rank + 1, and every validation sample counted once.
  EXPECT_EQ(r0.at("rank_plus_one"), "1.5");
  EXPECT_EQ(r1.at("rank_plus_one"), "1.5");
  EXPECT_EQ(one.at("val_samples"), "9");
  EXPECT_EQ(r0.at("val_samples"), "9");
  EXPECT_EQ(r1.at("val_samples"), "9");
  EXPECT_EQ(r0.at("val_loss"), r1.at("val_loss"));
  EXPECT_LE(std::abs(std::stod(r0.at("val_loss")) - std::stod(one.at("val_loss"))), 1e-5);
  // One log and one set of checkpoints, which every rank knows by the same name.
  const fs::path logs = dir_ / "ddp" / "lightning_logs";
  EXPECT_TRUE(fs::exists(logs / "version_0" / "metrics.csv"));
  EXPECT_FALSE(fs::exists(logs / "version_1"));
  EXPECT_EQ(r0.at("log_dir"), (logs / "version_0").string());
  EXPECT_EQ(r1.at("log_dir"), (logs / "version_0").string());
  EXPECT_EQ(r0.at("best_model_path"), r1.at("best_model_path"));
  EXPECT_TRUE(fs::exists(r0.at("best_model_path")));
  EXPECT_EQ(files_in(logs / "version_0" / "checkpoints", ".ckpt").size(), 1u);
}

TEST_F(DDPLaunchTest, SyncBatchnormNormalizesOverTheGlobalBatchLikeOneProcess) {
  // A SyncBatchNorm after the hidden layer: with sync_batchnorm two ranks of 4 train exactly as
  // one process of 8 (weights, running statistics); without it each rank normalizes its own 4.
  auto single = launch("single", {"--devices", "1", "--batch", "8", "--batchnorm", "1"});
  ASSERT_EQ(single->wait(), 0) << single->err();
  auto synced = launch(
      "synced", {"--devices", "2", "--batch", "4", "--batchnorm", "1", "--sync-batchnorm", "1"});
  ASSERT_EQ(synced->wait(), 0) << synced->err();
  auto local = launch("local", {"--devices", "2", "--batch", "4", "--batchnorm", "1"});
  ASSERT_EQ(local->wait(), 0) << local->err();

  const auto one = rank_file("single", 0);
  const auto s0 = rank_file("synced", 0), s1 = rank_file("synced", 1);
  const auto l0 = rank_file("local", 0), l1 = rank_file("local", 1);
  // 3 running means, 3 running variances, num_batches_tracked = 6 steps.
  ASSERT_EQ(numbers(one.at("buffers")).size(), 7u);
  EXPECT_EQ(numbers(one.at("buffers")).back(), 6);
  EXPECT_LE(max_abs_diff(s0.at("weights"), one.at("weights")), 1e-5);
  EXPECT_LE(max_abs_diff(s0.at("buffers"), one.at("buffers")), 1e-5);
  EXPECT_EQ(s0.at("weights"), s1.at("weights"));
  EXPECT_EQ(s0.at("buffers"), s1.at("buffers"));
  // The same job without the flag: the ranks' running statistics part, the weights drift off.
  EXPECT_NE(l0.at("buffers"), l1.at("buffers"));
  EXPECT_GT(max_abs_diff(l0.at("weights"), one.at("weights")), 1e-3);
}

TEST_F(DDPLaunchTest, WithGradientAccumulationTwoRanksStillTrainLikeOneProcess) {
  // Micro-batches that do not step skip the all-reduce (no_sync) and still sum up right.
  auto single = launch("single", {"--devices", "1", "--batch", "8", "--accumulate", "2"});
  ASSERT_EQ(single->wait(), 0) << single->err();
  auto ddp = launch("ddp", {"--devices", "2", "--batch", "4", "--accumulate", "2"});
  ASSERT_EQ(ddp->wait(), 0) << ddp->err();
  const auto one = rank_file("single", 0), r0 = rank_file("ddp", 0), r1 = rank_file("ddp", 1);
  EXPECT_LE(max_abs_diff(r0.at("weights"), one.at("weights")), 1e-5);
  EXPECT_EQ(r0.at("weights"), r1.at("weights"));
}

TEST_F(DDPLaunchTest, TwoNodesOnLoopbackTrainAsOneWorld) {
  auto single = launch("single", {"--devices", "1", "--batch", "8"});
  ASSERT_EQ(single->wait(), 0) << single->err();
  const std::string port = std::to_string(LightningEnvironment::find_free_port());
  const std::vector<std::string> args{"--devices", "2", "--num-nodes", "2", "--batch", "2"};
  auto node0 = launch("nodes", args,
                      {{"NODE_RANK", "0"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}},
                      "node0");
  auto node1 = launch("nodes", args,
                      {{"NODE_RANK", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}},
                      "node1");
  ASSERT_EQ(node0->wait(), 0) << node0->err();
  ASSERT_EQ(node1->wait(), 0) << node1->err();
  const auto one = rank_file("single", 0);
  for (int rank = 0; rank < 4; ++rank) {
    const auto r = rank_file("nodes", rank);
    EXPECT_EQ(r.at("world_size"), "4") << rank;
    EXPECT_EQ(r.at("rank_plus_one"), "2.5") << rank;
    EXPECT_EQ(r.at("val_samples"), "9") << rank;
    EXPECT_EQ(r.at("gathered"), "0,1,10,11,20,21,30,31") << rank;
    // (1 + 2 + 3 + 4) × [2r + 1, 2r + 2]
    EXPECT_EQ(r.at("sync_grad"), fmt::format("{},{}", 10 * (2 * rank + 1), 10 * (2 * rank + 2)))
        << rank;
    EXPECT_LE(max_abs_diff(r.at("weights"), one.at("weights")), 1e-5) << rank;
  }
}

TEST_F(DDPLaunchTest, ARankThatThrowsStopsTheJobAndIsNamedWithItsError) {
  const auto begin = Clock::now();
  auto job = launch("job", {"--fail-rank", "1", "--fail-step", "2"});
  ASSERT_EQ(job->wait(std::chrono::seconds(60)), 1) << job->err();
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(60));
  const pid_t child = pid_of("job", 1);
  EXPECT_THAT(job->err(), HasSubstr("rank 1 (pid " + std::to_string(child) +
                                    ") exited with code 1: injected failure in rank 1 at step 2; "
                                    "the other ranks were stopped"));
  EXPECT_FALSE(process_alive(child));
}

TEST_F(DDPLaunchTest, ARankKilledWithSigkillStopsTheJob) {
  auto job = launch("job", {"--fail-rank", "1", "--fail-step", "2", "--fail-how", "kill"});
  ASSERT_EQ(job->wait(std::chrono::seconds(60)), 1) << job->err();
  const pid_t child = pid_of("job", 1);
  EXPECT_THAT(job->err(), HasSubstr("rank 1 (pid " + std::to_string(child) +
                                    ") was killed by SIGKILL; the other ranks were stopped"));
  EXPECT_FALSE(process_alive(child));
}

TEST_F(DDPLaunchTest, TheLaunchingRankFailingStopsTheOthers) {
  auto job = launch("job", {"--fail-rank", "0", "--fail-step", "2"});
  ASSERT_EQ(job->wait(std::chrono::seconds(60)), 1) << job->err();
  EXPECT_THAT(job->err(), HasSubstr("fulgur: rank 0 failed; stopped the other ranks"));
  EXPECT_THAT(job->err(), HasSubstr("injected failure in rank 0 at step 2"));
  EXPECT_FALSE(process_alive(pid_of("job", 1)));
}

TEST_F(DDPLaunchTest, CtrlCToTheLauncherStopsEveryRank) {
  auto job = launch("job", {"--steps", "100000", "--step-ms", "5"});
  await_training("job", 2);
  ::kill(job->pid(), SIGINT);
  const auto code = job->wait(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << "the launcher did not stop";
  EXPECT_NE(*code, 0);
  EXPECT_THAT(job->err(), HasSubstr("received SIGINT (Ctrl-C): stopped all 2 ranks"));
  EXPECT_FALSE(process_alive(pid_of("job", 1)));
}

TEST_F(DDPLaunchTest, SigtermToOneRankStopsEveryRankAtTheSameStepWithACheckpoint) {
  auto job = launch("job", {"--steps", "100000", "--step-ms", "5"});
  await_training("job", 2);
  ::kill(job->pid(), SIGTERM);
  const auto code = job->wait(std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value()) << "the launcher did not stop";
  EXPECT_NE(*code, 0);
  EXPECT_THAT(job->err(), HasSubstr("received SIGTERM: stopped after step"));
  EXPECT_THAT(job->err(), ::testing::Not(HasSubstr("rank 0 failed")));
  EXPECT_TRUE(fs::exists(dir_ / "job" / "hpc_ckpt_1.ckpt"));
  EXPECT_FALSE(process_alive(pid_of("job", 1)));
}

TEST_F(DDPLaunchTest, KillingTheLauncherTakesItsRanksWithIt) {
  auto job = launch("job", {"--steps", "100000", "--step-ms", "5"});
  await_training("job", 2);
  ::kill(job->pid(), SIGKILL);
  job->wait();
  const pid_t child = pid_of("job", 1);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (process_alive(child) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(process_alive(child));
}

}  // namespace
}  // namespace fulgur
