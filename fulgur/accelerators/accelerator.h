#pragma once
// Accelerator: facts about one kind of hardware, nothing more. It holds no training state and
// knows nothing of models, optimizers or ranks; the Strategy owns the root device.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "fulgur/accelerators/devices.h"
#include "fulgur/accelerators/step_graph.h"

namespace fulgur {

class Accelerator {
 public:
  virtual ~Accelerator() = default;
  virtual std::string name() const = 0;
  virtual bool is_available() const = 0;
  // How many devices `devices="auto"` means.
  virtual int auto_device_count() const = 0;
  // The device ids (CUDA) or process slots (CPU) the flag selects. Raises ConfigError.
  virtual std::vector<int> parse_devices(const Devices& devices) const = 0;
  virtual std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const = 0;
  // Makes `device` current for this process (e.g. cudaSetDevice).
  virtual void setup_device(const c10::Device& device) = 0;
  virtual void teardown() {}
  // Waits for the work queued on `device` (timing asynchronous devices); CPU work is done when
  // the call returns.
  virtual void synchronize(const c10::Device& device) const { (void)device; }
  // Numbers worth logging (memory in use, utilisation), by name.
  virtual std::map<std::string, double> device_stats(const c10::Device& device) const = 0;
  // The stream that batches are copied to `device` on, beside the one that computes; none (the
  // default): they are copied on the compute stream, in order with its kernels.
  virtual std::optional<c10::Stream> copy_stream(const c10::Device& device) {
    (void)device;
    return std::nullopt;
  }
  // A graph to record the training step on `device` in, once, and replay for each batch; none
  // (the default): every step is launched op by op.
  virtual std::unique_ptr<StepGraph> make_step_graph(const c10::Device& device) {
    (void)device;
    return nullptr;
  }
};

}  // namespace fulgur
