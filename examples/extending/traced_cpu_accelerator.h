#pragma once
// TracedCPUAccelerator — the CPU accelerator with a trace: one line on stdout each time the
// Strategy sets the device up (at the start of every fit/validate/test/predict) or tears it
// down (at the end), and a count of set-ups among the device statistics.
//
// Registered by name in fulgur::accelerator_registry() (see register_extensions.cpp), so
// `.accelerator = "traced_cpu"` (or `--trainer.accelerator=traced_cpu` in a LightningCLI
// program) selects it. Like every Accelerator it holds facts about the hardware only: the
// Strategy owns the root device and decides when these functions run.
#include <map>
#include <string>

#include "fulgur/accelerators/cpu_accelerator.h"

namespace extending {

class TracedCPUAccelerator : public fulgur::CPUAccelerator {
 public:
  static constexpr const char* kName = "traced_cpu";

  std::string name() const override { return kName; }
  void setup_device(const c10::Device& device) override;
  void teardown() override;
  // The CPU's statistics (resident memory) plus `traced_cpu_setups`.
  std::map<std::string, double> device_stats(const c10::Device& device) const override;

 private:
  int setups_ = 0;
};

}  // namespace extending
