#include "fulgur/compat/cuda_graph.h"
#include "fulgur/errors.h"

namespace fulgur::compat {

std::unique_ptr<StepGraph> make_cuda_step_graph(const c10::Device&, int64_t) {
  throw ConfigError(
      "CUDAAcceleratorOptions::cuda_graph needs a LibTorch built with CUDA; this one has none");
}

}  // namespace fulgur::compat
