#include "fulgur/accelerators/cuda_accelerator.h"

#include <fmt/format.h>
#include <torch/cuda.h>

#include "fulgur/accelerators/device_parser.h"
#include "fulgur/compat/cuda_device.h"
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

}  // namespace fulgur
