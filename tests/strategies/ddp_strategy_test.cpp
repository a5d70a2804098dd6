// DDPStrategy's options, in one process (the multi-process behaviour is in tests/integration).
#include "fulgur/strategies/ddp.h"

#include <gtest/gtest.h>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

std::string error_of(DDPOptions options) {
  try {
    DDPStrategy strategy(std::move(options));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DDPStrategy, DefaultsAreLightnings) {
  const DDPStrategy strategy;
  EXPECT_EQ(strategy.options().process_group_backend, "gloo");
  EXPECT_EQ(strategy.options().bucket_cap_mb, 25);
  EXPECT_FALSE(strategy.options().find_unused_parameters);
  EXPECT_EQ(strategy.options().timeout, std::chrono::minutes(30));
}

TEST(DDPStrategy, BackendsOtherThanGlooAreClearErrors) {
  EXPECT_EQ(error_of({.process_group_backend = "nccl"}),
            "DDPOptions{.process_group_backend = \"nccl\"} is not available yet: fulgur's process "
            "group speaks Gloo (CUDA tensors travel through host memory); use \"gloo\"");
  EXPECT_EQ(error_of({.process_group_backend = "mpi2"}),
            "DDPOptions{.process_group_backend = \"mpi2\"} is not a c10d backend fulgur knows; "
            "use \"gloo\"");
}

}  // namespace
}  // namespace fulgur
