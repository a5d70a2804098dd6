#include "fulgur/accelerators/cpu_accelerator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <numeric>
#include <sstream>

#include "fulgur/accelerators/host_allocator.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

ConfigError invalid(const Devices& devices) {
  return ConfigError(fmt::format(
      "devices={} is not valid for accelerator=\"cpu\"; on the CPU, devices is the number of "
      "processes: use a positive integer (1, 2) or a string of digits (\"2\"), or \"auto\" (1)",
      devices.to_string()));
}

// "VmRSS:    1234 kB" → 1234 * 1024.
double status_bytes(const std::string& line) {
  std::istringstream in(line.substr(line.find(':') + 1));
  double value = 0;
  std::string unit;
  in >> value >> unit;
  return unit == "kB" ? value * 1024.0 : value;
}

}  // namespace

std::vector<int> CPUAccelerator::parse_devices(const Devices& devices) const {
  int processes = 0;
  if (const auto* n = std::get_if<int>(&devices.value)) {
    processes = *n;
  } else if (const auto* text = std::get_if<std::string>(&devices.value)) {
    if (*text == "auto") {
      processes = auto_device_count();
    } else if (!text->empty() && text->size() <= 9 &&
               std::all_of(text->begin(), text->end(),
                           [](unsigned char c) { return std::isdigit(c); })) {
      processes = std::stoi(*text);
    }
  }
  if (processes <= 0) throw invalid(devices);
  std::vector<int> ids(static_cast<size_t>(processes));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

std::vector<c10::Device> CPUAccelerator::get_parallel_devices(const std::vector<int>& ids) const {
  return std::vector<c10::Device>(ids.size(), c10::Device(c10::kCPU));
}

void CPUAccelerator::setup_device(const c10::Device& device) {
  if (!device.is_cpu()) {
    throw ConfigError(
        fmt::format("the CPU accelerator cannot set up device \"{}\"; use "
                    "accelerator=\"cuda\" for CUDA devices",
                    device.str()));
  }
  if (options_.keep_activations_in_heap) keep_activations_in_heap();
}

std::map<std::string, double> CPUAccelerator::device_stats(const c10::Device& device) const {
  (void)device;
  // Resident memory of this process, as the kernel counts it; empty where /proc is missing.
  std::map<std::string, double> stats;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) stats["cpu_rss_bytes"] = status_bytes(line);
    if (line.rfind("VmHWM:", 0) == 0) stats["cpu_peak_rss_bytes"] = status_bytes(line);
  }
  return stats;
}

}  // namespace fulgur
