#pragma once
// glibc's malloc gives large freed blocks back to the kernel and maps big ones afresh; its
// thresholds for both move with the order of frees. A training step frees and reallocates the
// same activations every step, so depending on that order a process either reuses them from
// the heap or pays mmap, page faults and trimming for every one (3x on the Fashion-MNIST CNN,
// 1.4x on a 1024-wide MLP, in raw LibTorch and Python alike). Pinning the thresholds makes the
// fast case the only case.
#include <cstddef>
#include <string>

namespace fulgur {

// What `keep_activations_in_heap` did, and why.
struct HostAllocatorTuning {
  bool applied = false;
  std::string reason;
};

// The values pinned: glibc's own ceiling for its dynamic mmap threshold (32 MiB on 64-bit),
// and twice that for trimming, the ratio glibc's dynamic rule keeps.
inline constexpr std::size_t kHeapMmapThresholdBytes = std::size_t{32} << 20;
inline constexpr std::size_t kHeapTrimThresholdBytes = std::size_t{64} << 20;

// Pins malloc's mmap and trim thresholds for this process, once. Leaves them alone where the
// user set their own (GLIBC_TUNABLES naming glibc.malloc, or MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_), and where malloc is not glibc's (sanitizers).
HostAllocatorTuning keep_activations_in_heap();

}  // namespace fulgur
