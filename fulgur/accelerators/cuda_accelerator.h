#pragma once
// NVIDIA GPUs through LibTorch's CUDA backend. Compiles everywhere; on a LibTorch without
// CUDA it reports itself unavailable.
#include "fulgur/accelerators/accelerator.h"

namespace fulgur {

// The CUDA accelerator's per-device knobs, e.g.
//   .accelerator = std::make_shared<CUDAAccelerator>(CUDAAcceleratorOptions{.copy_stream = true})
struct CUDAAcceleratorOptions {
  // Copy batches to the GPU on a stream of their own: the copy of the next batch then runs on
  // the copy engine while this batch's kernels still run, instead of queueing behind them. The
  // batch's own kernels wait for its copy. Overlaps only pinned batches (the loaders of a CUDA
  // fit pin theirs).
  bool copy_stream = false;
  // Record the training step (training_step, zero_grad, backward, optimizer step) as a CUDA
  // graph after cuda_graph_warmup_steps eager steps, and replay it for each later batch of the
  // same shapes: the host no longer launches each kernel. For static shapes, one process, SGD,
  // no loss scaler, clipping or accumulation; see GraphedTrainingStep for what runs when.
  bool cuda_graph = false;
  int64_t cuda_graph_warmup_steps = 3;
};

class CUDAAccelerator : public Accelerator {
 public:
  CUDAAccelerator() = default;
  explicit CUDAAccelerator(CUDAAcceleratorOptions options) : options_(options) {}
  const CUDAAcceleratorOptions& options() const { return options_; }
  std::string name() const override { return "cuda"; }
  bool is_available() const override;
  int auto_device_count() const override;
  std::vector<int> parse_devices(const Devices& devices) const override;
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const override;
  void setup_device(const c10::Device& device) override;
  void teardown() override;
  void synchronize(const c10::Device& device) const override;
  std::map<std::string, double> device_stats(const c10::Device& device) const override;
  std::optional<c10::Stream> copy_stream(const c10::Device& device) override;
  std::unique_ptr<StepGraph> make_step_graph(const c10::Device& device) override;

 private:
  CUDAAcceleratorOptions options_;
  std::map<c10::DeviceIndex, c10::Stream> copy_streams_;  // one per device, taken on first use
};

}  // namespace fulgur
