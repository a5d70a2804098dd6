#pragma once
// StepGraph: device work recorded once and launched again as a whole (a CUDA graph), which is
// how CUDAAcceleratorOptions::cuda_graph runs a training step without paying the host's cost of
// launching each of its kernels again. The Accelerator makes one (Accelerator::make_step_graph);
// the training loop drives it (GraphedTrainingStep).
#include <cstdint>
#include <functional>

namespace fulgur {

class StepGraph {
 public:
  virtual ~StepGraph() = default;
  // Eager steps before the capture, so that what is set up lazily (the optimizer's state,
  // library handles, workspaces) exists before it; this many, each through warm_up().
  virtual int64_t warmup_steps() const = 0;
  // Runs `step` as usual, on the stream the capture will use.
  virtual void warm_up(const std::function<void()>& step) = 0;
  // Records the device work `step` queues, running none of it. Throws when `step` does what a
  // capture forbids (a read of a device value on the host, say), leaving the device usable.
  virtual void capture(const std::function<void()>& step) = 0;
  // Launches the recorded work on the current stream: the same kernels on the same memory.
  virtual void replay() = 0;
};

}  // namespace fulgur
