#include "fulgur/compat/cuda_device.h"
#include "fulgur/errors.h"

namespace fulgur::compat {

bool built_with_cuda() { return false; }

void cuda_set_device(int index) {
  throw ConfigError("cannot use CUDA device " + std::to_string(index) +
                    ": this build of fulgur uses a LibTorch without CUDA; use accelerator=\"cpu\" "
                    "or rebuild against a CUDA LibTorch (CMAKE_PREFIX_PATH)");
}

void cuda_synchronize(int index) { (void)index; }

void cuda_empty_cache() {}

std::map<std::string, double> cuda_memory_stats(int index) {
  (void)index;
  return {};
}

std::vector<at::Tensor> cuda_rng_states() { return {}; }

void set_cuda_rng_states(const std::vector<at::Tensor>& states) { (void)states; }

}  // namespace fulgur::compat
