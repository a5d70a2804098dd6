#include "traced_cpu_accelerator.h"

#include <fmt/format.h>

namespace extending {

void TracedCPUAccelerator::setup_device(const c10::Device& device) {
  // The base class refuses anything but a CPU device with a ConfigError.
  fulgur::CPUAccelerator::setup_device(device);
  ++setups_;
  fmt::print("[accelerator] {}: setup_device({})\n", name(), device.str());
}

void TracedCPUAccelerator::teardown() {
  fulgur::CPUAccelerator::teardown();
  fmt::print("[accelerator] {}: teardown\n", name());
}

std::map<std::string, double> TracedCPUAccelerator::device_stats(const c10::Device& device) const {
  auto stats = fulgur::CPUAccelerator::device_stats(device);
  stats["traced_cpu_setups"] = setups_;
  return stats;
}

}  // namespace extending
