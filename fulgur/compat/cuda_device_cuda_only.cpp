#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include "fulgur/compat/cuda_device.h"

#include <mutex>

namespace fulgur::compat {

bool built_with_cuda() { return true; }

void cuda_set_device(int index) { c10::cuda::set_device(static_cast<c10::DeviceIndex>(index)); }

void cuda_synchronize(int index) {
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(index));
  c10::cuda::device_synchronize();
}

void cuda_empty_cache() { c10::cuda::CUDACachingAllocator::emptyCache(); }

std::map<std::string, double> cuda_memory_stats(int index) {
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  // Slot 0 is StatType::AGGREGATE in every LibTorch; the enum's namespace moved in 2.x
  // (c10::CachingDeviceAllocator), the index did not.
  constexpr size_t kAll = 0;
  return {
      {"allocated_bytes.all.current", static_cast<double>(stats.allocated_bytes[kAll].current)},
      {"allocated_bytes.all.peak", static_cast<double>(stats.allocated_bytes[kAll].peak)},
      {"reserved_bytes.all.current", static_cast<double>(stats.reserved_bytes[kAll].current)},
      {"reserved_bytes.all.peak", static_cast<double>(stats.reserved_bytes[kAll].peak)},
      {"num_alloc_retries", static_cast<double>(stats.num_alloc_retries)},
      {"num_ooms", static_cast<double>(stats.num_ooms)},
  };
}

std::vector<at::Tensor> cuda_rng_states() {
  std::vector<at::Tensor> states;
  for (c10::DeviceIndex i = 0; i < c10::cuda::device_count(); ++i) {
    auto generator = at::cuda::detail::getDefaultCUDAGenerator(i);
    std::lock_guard<std::mutex> lock(generator.mutex());
    states.push_back(generator.get_state());
  }
  return states;
}

void set_cuda_rng_states(const std::vector<at::Tensor>& states) {
  const auto count = static_cast<size_t>(c10::cuda::device_count());
  for (size_t i = 0; i < states.size() && i < count; ++i) {
    auto generator = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(i));
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(states[i]);
  }
}

}  // namespace fulgur::compat
