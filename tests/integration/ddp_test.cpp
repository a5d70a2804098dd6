// DDPStrategy across two real processes on loopback, started with torchrun's variables: the
// collectives, rank 0's weights everywhere after setup, and the equivalence of 2 ranks × batch
// B with 1 process × batch 2B (with and without gradient accumulation). Failures to meet are a
// DistributedError within the timeout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/environments/lightning_environment.h"
#include "integration/child_process.h"
#include "project_paths.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ChildProcess;
using testing::key_values;

const std::string kWorker = testing::bin_dir() + "/ddp-worker";

class DDPTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(fs::exists(kWorker)) << kWorker << " was not built";
  }

  // Starts rank `rank` of a torchrun-style world of 2 on one node.
  std::unique_ptr<ChildProcess> start(int rank, int port, const std::vector<std::string>& args = {},
                                      const std::string& address = "127.0.0.1") {
    std::vector<std::string> argv{kWorker};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string name = "rank" + std::to_string(rank);
    return std::make_unique<ChildProcess>(
        argv, dir_ / (name + ".out"), dir_ / (name + ".err"),
        std::map<std::string, std::optional<std::string>>{
            {"RANK", std::to_string(rank)}, {"LOCAL_RANK", std::to_string(rank)},
            {"GROUP_RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"}, {"WORLD_SIZE", "2"},
            {"MASTER_ADDR", address}, {"MASTER_PORT", std::to_string(port)}});
  }
};

TEST_F(DDPTest, TwoRanksAgreeAndMatchOneProcessWithTheWholeBatch) {
  const int port = LightningEnvironment::find_free_port();
  auto r0 = start(0, port), r1 = start(1, port);
  ASSERT_EQ(r0->wait(), 0) << r0->err();
  ASSERT_EQ(r1->wait(), 0) << r1->err();
  const auto a = key_values(dir_ / "rank0.out"), b = key_values(dir_ / "rank1.out");
  EXPECT_EQ(a.at("rank"), "0");
  EXPECT_EQ(b.at("rank"), "1");
  for (const auto* v : {&a, &b}) {
    EXPECT_EQ(v->at("world_size"), "2");
    EXPECT_EQ(v->at("sum"), "3");
    EXPECT_EQ(v->at("mean"), "1.5");
    EXPECT_EQ(v->at("min"), "1");
    EXPECT_EQ(v->at("max"), "2");
    EXPECT_EQ(v->at("gathered"), "0,0,10,10");
    EXPECT_EQ(v->at("broadcast_text"), "from zero");
    EXPECT_EQ(v->at("all_true"), "0");
    EXPECT_EQ(v->at("any_true"), "1");
  }
  for (const std::string micro : {"micro1", "micro2"}) {
    // Rank 1 started from other random weights; setup gave it rank 0's.
    EXPECT_EQ(a.at(micro + "_initial"), b.at(micro + "_initial")) << micro;
    EXPECT_EQ(a.at(micro + "_final"), b.at(micro + "_final")) << micro;
    EXPECT_LE(std::stod(a.at(micro + "_max_diff")), 1e-5) << micro;
    EXPECT_LE(std::stod(b.at(micro + "_max_diff")), 1e-5) << micro;
  }
}

TEST_F(DDPTest, ARankWhosePeerNeverComesFailsWithinTheTimeout) {
  const int port = LightningEnvironment::find_free_port();
  const auto begin = std::chrono::steady_clock::now();
  auto r1 = start(1, port, {"--timeout-ms", "3000"});
  EXPECT_EQ(r1->wait(), 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 20);
  const std::string err = r1->err();
  EXPECT_THAT(err, HasSubstr("rank 1 of 2 could not join the process group at 127.0.0.1:" +
                             std::to_string(port)));
  EXPECT_THAT(err, HasSubstr("check that every rank was started"));
}

TEST_F(DDPTest, AnUnreachableMasterAddressFailsWithinTheTimeoutNamingIt) {
  const auto begin = std::chrono::steady_clock::now();
  auto r1 = start(1, 29555, {"--timeout-ms", "3000"}, "no-such-host.invalid");
  EXPECT_EQ(r1->wait(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(20));
  EXPECT_THAT(r1->err(), HasSubstr("rank 1 of 2 could not join the process group at "
                                   "no-such-host.invalid:29555"));
  EXPECT_THAT(r1->err(), HasSubstr("MASTER_ADDR=no-such-host.invalid is reachable"));
}

TEST_F(DDPTest, ABusyPortIsADistributedErrorSayingSo) {
  // Something else listens on the port.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);

  auto r0 = start(0, port, {"--timeout-ms", "3000"});
  EXPECT_EQ(r0->wait(), 1);
  ::close(fd);
  EXPECT_THAT(r0->err(), HasSubstr("port " + std::to_string(port) +
                                      " is already in use on this machine; set MASTER_PORT"));
}

}  // namespace
}  // namespace fulgur
