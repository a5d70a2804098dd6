#include "fulgur/accelerators/cuda_accelerator.h"

#include <c10/core/impl/VirtualGuardImpl.h>
#include <fmt/format.h>
#include <torch/cuda.h>

#include "fulgur/accelerators/device_parser.h"
#include "fulgur/compat/cuda_device.h"
#include "fulgur/compat/cuda_graph.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

void require_cuda(const c10::Device& device) {
  if (!device.is_cuda()) {
    throw ConfigError(
        fmt::format("the CUDA accelerator cannot set up device \"{}\"; use "
                    "accelerator=\"cpu\" for the CPU",
                    device.str()));
  }
}

}  // namespace

bool CUDAAccelerator::is_available() const { return torch::cuda::is_available(); }

int CUDAAccelerator::auto_device_count() const {
  return static_cast<int>(torch::cuda::device_count());
}

std::vector<int> CUDAAccelerator::parse_devices(const Devices& devices) const {
  return parse_gpu_ids(devices, auto_device_count(), name());
}

std::vector<c10::Device> CUDAAccelerator::get_parallel_devices(const std::vector<int>& ids) const {
  std::vector<c10::Device> out;
  out.reserve(ids.size());
  for (int id : ids) out.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(id));
  return out;
}

void CUDAAccelerator::setup_device(const c10::Device& device) {
  require_cuda(device);
  compat::cuda_set_device(device.has_index() ? device.index() : 0);
}

void CUDAAccelerator::teardown() { compat::cuda_empty_cache(); }

void CUDAAccelerator::synchronize(const c10::Device& device) const {
  compat::cuda_synchronize(device.has_index() ? device.index() : 0);
}

std::map<std::string, double> CUDAAccelerator::device_stats(const c10::Device& device) const {
  require_cuda(device);
  return compat::cuda_memory_stats(device.has_index() ? device.index() : 0);
}

std::optional<c10::Stream> CUDAAccelerator::copy_stream(const c10::Device& device) {
  if (!options_.copy_stream || !device.is_cuda()) return std::nullopt;
  const c10::DeviceIndex index = device.has_index() ? device.index() : 0;
  auto found = copy_streams_.find(index);
  if (found == copy_streams_.end()) {
    // Through c10's device-generic interface: no CUDA header here, and none in a CPU build.
    const c10::impl::VirtualGuardImpl cuda(c10::DeviceType::CUDA);
    const c10::Device gpu(c10::kCUDA, index);
    found = copy_streams_.emplace(index, cuda.getStreamFromGlobalPool(gpu)).first;
  }
  return found->second;
}

std::unique_ptr<StepGraph> CUDAAccelerator::make_step_graph(const c10::Device& device) {
  if (!options_.cuda_graph || !device.is_cuda()) return nullptr;
  if (options_.cuda_graph_warmup_steps < 1) {
    throw ConfigError(fmt::format(
        "CUDAAcceleratorOptions::cuda_graph_warmup_steps is {}; the step must run eagerly at "
        "least once before its capture (the optimizer creates its state then)",
        options_.cuda_graph_warmup_steps));
  }
  return compat::make_cuda_step_graph(device, options_.cuda_graph_warmup_steps);
}

}  // namespace fulgur
