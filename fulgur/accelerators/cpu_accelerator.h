#pragma once
// The CPU. `devices=N` means N processes (Lightning's behaviour), each on the CPU device.
#include "fulgur/accelerators/accelerator.h"

namespace fulgur {

struct CPUAcceleratorOptions {
  // Pin glibc malloc's thresholds at setup so each step reuses its activations from the heap
  // (see host_allocator.h). Off: malloc keeps its dynamic thresholds.
  bool keep_activations_in_heap = true;
};

class CPUAccelerator : public Accelerator {
 public:
  explicit CPUAccelerator(CPUAcceleratorOptions options = {}) : options_(options) {}
  std::string name() const override { return "cpu"; }
  bool is_available() const override { return true; }
  int auto_device_count() const override { return 1; }
  std::vector<int> parse_devices(const Devices& devices) const override;
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const override;
  void setup_device(const c10::Device& device) override;
  std::map<std::string, double> device_stats(const c10::Device& device) const override;

 private:
  CPUAcceleratorOptions options_;
};

}  // namespace fulgur
