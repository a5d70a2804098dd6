#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "fulgur/compat/cuda_graph.h"

namespace fulgur::compat {
namespace {

// `waiter` runs nothing queued after this call until what is queued on `done` now has run.
void wait_for(const c10::cuda::CUDAStream& waiter, const c10::cuda::CUDAStream& done) {
  at::cuda::CUDAEvent event;
  event.record(done);
  event.block(waiter);
}

// A capture cannot run on the default stream, and warm-up must run on the stream the capture
// will use; `side` is such a stream, ordered after and before the compute stream's work.
template <typename Body>
void on_side_stream(const c10::cuda::CUDAStream& side, Body&& body) {
  const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(side.device_index());
  wait_for(side, compute);
  {
    const c10::cuda::CUDAStreamGuard current(side);
    body();
  }
  wait_for(compute, side);
}

class CudaStepGraph final : public StepGraph {
 public:
  CudaStepGraph(const c10::Device& device, int64_t warmup_steps)
      : side_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())),
        warmup_steps_(warmup_steps) {}

  int64_t warmup_steps() const override { return warmup_steps_; }

  void warm_up(const std::function<void()>& step) override { on_side_stream(side_, step); }

  void capture(const std::function<void()>& step) override {
    // A fresh graph each time: a CUDAGraph captures once, and a new capture (after a learning
    // rate changed) must not keep the old one's memory pool alive.
    graph_ = std::make_unique<at::cuda::CUDAGraph>();
    on_side_stream(side_, [&] {
      graph_->capture_begin();
      try {
        step();
      } catch (...) {
        // Ends the stream's capture mode, or the stream stays unusable; the capture's own
        // error (invalidated) says nothing the first one did not.
        try {
          graph_->capture_end();
        } catch (...) {
        }
        graph_.reset();
        throw;
      }
      graph_->capture_end();
    });
  }

  void replay() override { graph_->replay(); }

 private:
  c10::cuda::CUDAStream side_;
  int64_t warmup_steps_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

}  // namespace

std::unique_ptr<StepGraph> make_cuda_step_graph(const c10::Device& device, int64_t warmup_steps) {
  return std::make_unique<CudaStepGraph>(device, warmup_steps);
}

}  // namespace fulgur::compat
