#pragma once
// DDPStrategy (Lightning's "ddp"): one process per device, each with a full copy of the model.
// At setup every rank takes rank 0's parameters and buffers; in training, c10d's Reducer
// all-reduces gradient buckets while backward runs, so after each synchronised backward every
// rank holds the mean gradient and the optimizers stay in step. Micro-batches that only
// accumulate (accumulate_grad_batches) do not communicate.
//
// The processes come from fulgur's own launcher (devices=N starts N-1 more copies of this
// program) or from one outside it (torchrun, srun, mpirun: any that sets the variables of a
// ClusterEnvironment).
#include <chrono>
#include <memory>
#include <string>

#include "fulgur/strategies/parallel_strategy.h"

namespace fulgur {

namespace compat {
class GradientReducer;
}  // namespace compat

struct DDPOptions {
  // Needed when some parameters get no gradient in a step (Lightning's
  // "ddp_find_unused_parameters_true").
  bool find_unused_parameters = false;
  double bucket_cap_mb = 25;  // PyTorch's default
  // The c10d backend: "gloo" (also the default, on every device: CUDA tensors travel through
  // host memory). "nccl" is refused with a ConfigError until fulgur's NCCL group is built.
  std::string process_group_backend = "gloo";
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};

class DDPStrategy : public ParallelStrategy {
 public:
  explicit DDPStrategy(DDPOptions options = {});
  ~DDPStrategy() override;
  std::string name() const override { return "ddp"; }
  const DDPOptions& options() const { return options_; }

  // fulgur's SubprocessScriptLauncher when the environment does not start the processes.
  void configure_launcher() override;
  void setup_environment() override;
  // Moves the module, gives every rank rank 0's weights, and sets up gradient synchronisation.
  void setup_module(torch::nn::Module& module) override;
  void teardown() override;

  torch::Tensor training_step(Module& module, Batch& batch, int64_t batch_idx) override;
  void backward(const torch::Tensor& loss, Module* module = nullptr) override;
  void set_backward_sync(bool enabled) override { backward_sync_ = enabled; }

 private:
  DDPOptions options_;
  std::unique_ptr<compat::GradientReducer> reducer_;
  bool backward_sync_ = true;
};

}  // namespace fulgur
