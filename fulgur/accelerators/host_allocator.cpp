#include "fulgur/accelerators/host_allocator.h"

#include <cstdlib>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fulgur {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitizerAllocator = true;
#else
constexpr bool kSanitizerAllocator = false;
#endif
#else
constexpr bool kSanitizerAllocator = false;
#endif

// The environment variable through which the user already chose malloc's thresholds, if any.
const char* user_malloc_setting() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"}) {
    if (std::getenv(name) != nullptr) return name;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::string(tunables).find("glibc.malloc.") != std::string::npos) {
    return "GLIBC_TUNABLES";
  }
  return nullptr;
}

HostAllocatorTuning tune() {
#if defined(__GLIBC__)
  if (kSanitizerAllocator) return {false, "malloc is the sanitizer's, not glibc's"};
  if (const char* name = user_malloc_setting()) {
    return {false, std::string("kept the thresholds set through ") + name};
  }
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapMmapThresholdBytes)) == 0 ||
      mallopt(M_TRIM_THRESHOLD, static_cast<int>(kHeapTrimThresholdBytes)) == 0) {
    return {false, "glibc refused the thresholds"};
  }
  return {true, "mmap threshold 32 MiB, trim threshold 64 MiB"};
#else
  return {false, "malloc is not glibc's"};
#endif
}

}  // namespace

HostAllocatorTuning keep_activations_in_heap() {
  static std::once_flag once;
  static HostAllocatorTuning result;
  std::call_once(once, [] { result = tune(); });
  return result;
}

}  // namespace fulgur
