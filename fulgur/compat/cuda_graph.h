#pragma once
// The CUDA implementation of StepGraph (at::cuda::CUDAGraph). It needs CUDA headers, so it
// lives in cuda_graph_cuda_only.cpp; in a build without CUDA (cuda_graph_no_cuda.cpp) asking
// for one raises ConfigError.
#include <c10/core/Device.h>

#include <memory>

#include "fulgur/accelerators/step_graph.h"

namespace fulgur::compat {

std::unique_ptr<StepGraph> make_cuda_step_graph(const c10::Device& device, int64_t warmup_steps);

}  // namespace fulgur::compat
