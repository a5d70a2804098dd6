// LightningEnvironment reads the launcher's variables and otherwise describes one local process.
#include "fulgur/environments/lightning_environment.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "fulgur/errors.h"
#include "scoped_env.h"

namespace fulgur {
namespace {

const std::map<std::string, std::optional<std::string>> kClean = {
    {"MASTER_ADDR", std::nullopt}, {"MASTER_PORT", std::nullopt}, {"WORLD_SIZE", std::nullopt},
    {"RANK", std::nullopt},        {"LOCAL_RANK", std::nullopt},  {"NODE_RANK", std::nullopt},
    {"GROUP_RANK", std::nullopt}};

std::map<std::string, std::optional<std::string>> clean_with(
    const std::map<std::string, std::optional<std::string>>& values) {
  auto out = kClean;
  for (const auto& [k, v] : values) out[k] = v;
  return out;
}

TEST(LightningEnvironment, DefaultsDescribeOneLocalProcess) {
  testing::ScopedEnv env(kClean);
  LightningEnvironment e;
  EXPECT_EQ(e.name(), "LightningEnvironment");
  EXPECT_FALSE(e.creates_processes_externally());
  EXPECT_EQ(e.main_address(), "127.0.0.1");
  EXPECT_EQ(e.world_size(), 1);
  EXPECT_EQ(e.global_rank(), 0);
  EXPECT_EQ(e.local_rank(), 0);
  EXPECT_EQ(e.node_rank(), 0);
  int port = e.main_port();
  EXPECT_GT(port, 0);
  EXPECT_LE(port, 65535);
  EXPECT_EQ(e.main_port(), port);  // chosen once, so every rank's view stays the same
}

TEST(LightningEnvironment, ReadsTheLaunchersVariables) {
  testing::ScopedEnv env(clean_with({{"MASTER_ADDR", "10.0.0.7"},
                            {"MASTER_PORT", "29517"},
                            {"WORLD_SIZE", "8"},
                            {"RANK", "5"},
                            {"LOCAL_RANK", "1"},
                            {"NODE_RANK", "2"}}));
  LightningEnvironment e;
  EXPECT_TRUE(e.creates_processes_externally());
  EXPECT_EQ(e.main_address(), "10.0.0.7");
  EXPECT_EQ(e.main_port(), 29517);
  EXPECT_EQ(e.world_size(), 8);
  EXPECT_EQ(e.global_rank(), 5);
  EXPECT_EQ(e.local_rank(), 1);
  EXPECT_EQ(e.node_rank(), 2);
  e.set_world_size(4);
  e.set_global_rank(3);
  EXPECT_EQ(e.world_size(), 4);
  EXPECT_EQ(e.global_rank(), 3);
}

TEST(LightningEnvironment, GroupRankStandsInForNodeRank) {
  testing::ScopedEnv env(clean_with({{"GROUP_RANK", "3"}}));
  EXPECT_EQ(LightningEnvironment().node_rank(), 3);
}

TEST(LightningEnvironment, ALaunchedProcessMustBelongToAWorldOfDevicesTimesNodes) {
  {
    testing::ScopedEnv env(clean_with({{"WORLD_SIZE", "4"}}));  // not launched: no LOCAL_RANK
    EXPECT_NO_THROW(LightningEnvironment().validate_settings(1, 1));
  }
  testing::ScopedEnv env(clean_with({{"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"RANK", "1"}}));
  LightningEnvironment e;
  EXPECT_NO_THROW(e.validate_settings(2, 2));
  try {
    e.validate_settings(2, 1);
    ADD_FAILURE() << "a world of 4 launched for devices=2 must be rejected";
  } catch (const ConfigError& err) {
    EXPECT_STREQ(err.what(),
                 "devices × num_nodes = 2 × 1 = 2, but this process was started as one of "
                 "WORLD_SIZE=4 processes; launch devices × num_nodes processes or change the "
                 "flags");
  }
}

TEST(LightningEnvironment, BadVariablesAreConfigErrors) {
  {
    testing::ScopedEnv env(clean_with({{"WORLD_SIZE", "two"}}));
    try {
      LightningEnvironment e;
      ADD_FAILURE() << "WORLD_SIZE=two must be rejected";
    } catch (const ConfigError& e) {
      EXPECT_STREQ(e.what(),
                   "environment variable WORLD_SIZE=\"two\" is not valid; it must be "
                   "an integer >= 1 (or unset)");
    }
  }
  {
    testing::ScopedEnv env(clean_with({{"LOCAL_RANK", "-1"}}));
    EXPECT_THROW(LightningEnvironment().local_rank(), ConfigError);
  }
  {
    testing::ScopedEnv env(clean_with({{"MASTER_PORT", "70000"}}));
    LightningEnvironment e;
    try {
      e.main_port();
      ADD_FAILURE() << "MASTER_PORT=70000 must be rejected";
    } catch (const ConfigError& err) {
      EXPECT_THAT(err.what(), ::testing::HasSubstr("MASTER_PORT=\"70000\" is not a TCP port"));
    }
  }
}

TEST(LightningEnvironment, FindFreePortReturnsABindablePort) {
  int port = LightningEnvironment::find_free_port();
  ASSERT_GT(port, 0);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(fd);
}

}  // namespace
}  // namespace fulgur
