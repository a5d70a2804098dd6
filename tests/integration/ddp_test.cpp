// DDPStrategy across two real processes on loopback, started with torchrun's variables: the
// collectives, rank 0's weights everywhere after setup, and the equivalence of 2 ranks × batch
// B with 1 process × batch 2B (with and without gradient accumulation). Failures to meet are a
// DistributedError within the timeout.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fulgur/environments/lightning_environment.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kWorker = std::string(FULGUR_BIN_DIR) + "/ddp-worker";

struct Rank {
  pid_t pid = -1;
  fs::path out, err;
};

class DDPTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fulgur_ddp_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_TRUE(fs::exists(kWorker)) << kWorker << " was not built";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts rank `rank` of a torchrun-style world of 2 on one node.
  Rank start(int rank, int port, const std::vector<std::string>& args = {}) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    for (const std::string& v :
         {"RANK=" + std::to_string(rank), "LOCAL_RANK=" + std::to_string(rank),
          std::string("GROUP_RANK=0"), std::string("LOCAL_WORLD_SIZE=2"),
          std::string("WORLD_SIZE=2"), std::string("MASTER_ADDR=127.0.0.1"),
          "MASTER_PORT=" + std::to_string(port)}) {
      env.push_back(v);
    }
    std::vector<std::string> argv_s{kWorker};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    Rank r;
    r.out = dir_ / ("rank" + std::to_string(rank) + ".out");
    r.err = dir_ / ("rank" + std::to_string(rank) + ".err");
    const std::string out = r.out.string(), err = r.err.string();
    r.pid = ::fork();
    if (r.pid == 0) {
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    return r;
  }
  static int wait_for(const Rank& r) {
    int status = 0;
    ::waitpid(r.pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static std::map<std::string, std::string> values(const fs::path& path) {
    std::map<std::string, std::string> out;
    std::istringstream in(read(path));
    for (std::string line; std::getline(in, line);) {
      const auto eq = line.find('=');
      if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(DDPTest, TwoRanksAgreeAndMatchOneProcessWithTheWholeBatch) {
  const int port = LightningEnvironment::find_free_port();
  const Rank r0 = start(0, port), r1 = start(1, port);
  ASSERT_EQ(wait_for(r0), 0) << read(r0.err);
  ASSERT_EQ(wait_for(r1), 0) << read(r1.err);
  const auto a = values(r0.out), b = values(r1.out);
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
  const Rank r1 = start(1, port, {"--timeout-ms", "3000"});
  EXPECT_EQ(wait_for(r1), 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 20);
  const std::string err = read(r1.err);
  EXPECT_THAT(err, HasSubstr("rank 1 of 2 could not join the process group at 127.0.0.1:" +
                             std::to_string(port)));
  EXPECT_THAT(err, HasSubstr("check that every rank was started"));
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

  const Rank r0 = start(0, port, {"--timeout-ms", "3000"});
  EXPECT_EQ(wait_for(r0), 1);
  ::close(fd);
  EXPECT_THAT(read(r0.err), HasSubstr("port " + std::to_string(port) +
                                      " is already in use on this machine; set MASTER_PORT"));
}

}  // namespace
}  // namespace fulgur
