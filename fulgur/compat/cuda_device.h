#pragma once
// The few CUDA runtime calls fulgur needs beyond torch::cuda's availability checks. They need
// CUDA headers, so they live in cuda_device_cuda_only.cpp (built against a LibTorch with CUDA)
// and cuda_device_no_cuda.cpp (every other build), and nothing else needs an #ifdef.
#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace fulgur::compat {

// True when this binary was built against a LibTorch with CUDA.
bool built_with_cuda();
// Makes CUDA device `index` current for this thread (cudaSetDevice). Raises ConfigError in a
// build without CUDA.
void cuda_set_device(int index);
// Waits until every kernel queued on CUDA device `index` has finished (for timing); nothing
// without CUDA.
void cuda_synchronize(int index);
// Returns cached, unused blocks of the caching allocator to the driver; nothing without CUDA.
void cuda_empty_cache();
// The caching allocator's memory counters for device `index`, in bytes, under the names
// Python's torch.cuda.memory_stats() uses ("allocated_bytes.all.current", ...). Empty without CUDA.
std::map<std::string, double> cuda_memory_stats(int index);
// Each device's default generator state, as Python's torch.cuda.get_rng_state_all(); empty
// without CUDA.
std::vector<at::Tensor> cuda_rng_states();
// Restores states from cuda_rng_states(); states for devices this machine lacks are ignored.
void set_cuda_rng_states(const std::vector<at::Tensor>& states);

}  // namespace fulgur::compat
