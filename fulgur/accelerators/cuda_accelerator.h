#pragma once
// NVIDIA GPUs through LibTorch's CUDA backend. Compiles everywhere; on a LibTorch without
// CUDA it reports itself unavailable.
#include "fulgur/accelerators/accelerator.h"

namespace fulgur {

class CUDAAccelerator : public Accelerator {
 public:
  std::string name() const override { return "cuda"; }
  bool is_available() const override;
  int auto_device_count() const override;
  std::vector<int> parse_devices(const Devices& devices) const override;
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const override;
  void setup_device(const c10::Device& device) override;
  void teardown() override;
  void synchronize(const c10::Device& device) const override;
  std::map<std::string, double> device_stats(const c10::Device& device) const override;
};

}  // namespace fulgur
