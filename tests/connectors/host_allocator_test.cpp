// The CPU accelerator pins malloc's thresholds at setup. Each test runs in a child process
// (a death test) so that malloc starts from glibc's defaults and the tuning is not yet done.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/accelerators/host_allocator.h"

namespace fulgur {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// 1 if a block of `bytes` was mapped on its own, 0 if it came from the heap.
int mapped_on_its_own(std::size_t bytes) {
  const auto before = mallinfo2().hblks;
  void* volatile block = std::malloc(bytes);
  const auto after = mallinfo2().hblks;
  std::free(block);
  return static_cast<int>(after - before);
}

void setup_cpu(CPUAcceleratorOptions options) {
  CPUAccelerator(options).setup_device(c10::Device(c10::kCPU));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)

TEST(HostAllocator, LeavesTheSanitizerAllocatorAlone) {
  setup_cpu({});
  const HostAllocatorTuning tuning = keep_activations_in_heap();
  EXPECT_FALSE(tuning.applied);
  EXPECT_EQ(tuning.reason, "malloc is the sanitizer's, not glibc's");
}

#else

class HostAllocator : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(HostAllocator, CPUSetupKeepsStepSizedBlocksInTheHeap) {
  EXPECT_EXIT(
      {
        // glibc's default maps a 16 MiB block on its own; freeing it raises the dynamic
        // threshold to 16 MiB, so a 24 MiB block is still mapped unless the tuning is on.
        const int before = mapped_on_its_own(16 * kMiB);
        setup_cpu({});
        const HostAllocatorTuning tuning = keep_activations_in_heap();
        std::fprintf(stderr, "applied=%d reason=%s before=%d step_sized=%d above=%d\n",
                     tuning.applied, tuning.reason.c_str(), before,
                     mapped_on_its_own(24 * kMiB), mapped_on_its_own(48 * kMiB));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "applied=1 reason=mmap threshold 32 MiB, trim threshold 64 MiB before=1 step_sized=0 "
      "above=1");
}

TEST_F(HostAllocator, OptionOffKeepsGlibcDefaults) {
  EXPECT_EXIT(
      {
        setup_cpu({.keep_activations_in_heap = false});
        std::fprintf(stderr, "step_sized=%d\n", mapped_on_its_own(24 * kMiB));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "step_sized=1");
}

TEST_F(HostAllocator, UsersOwnThresholdsWin) {
  EXPECT_EXIT(
      {
        setenv("MALLOC_TRIM_THRESHOLD_", "1048576", 1);
        setup_cpu({});
        const HostAllocatorTuning tuning = keep_activations_in_heap();
        std::fprintf(stderr, "applied=%d reason=%s step_sized=%d\n", tuning.applied,
                     tuning.reason.c_str(), mapped_on_its_own(24 * kMiB));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "applied=0 reason=kept the thresholds set through MALLOC_TRIM_THRESHOLD_ step_sized=1");
}

TEST_F(HostAllocator, GlibcTunablesForMallocWin) {
  EXPECT_EXIT(
      {
        setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
        setup_cpu({});
        std::fprintf(stderr, "reason=%s\n", keep_activations_in_heap().reason.c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "reason=kept the thresholds set through GLIBC_TUNABLES");
}

#endif

}  // namespace
}  // namespace fulgur
