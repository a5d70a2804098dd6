#pragma once
// Strategy: the one object that decides how training meets hardware. It owns the accelerator,
// the precision plugin, the checkpoint IO and the cluster environment, and the root device.
// Loops and the Trainer talk only to the Strategy: moving models and batches, running steps,
// backward, optimizer steps, collectives and checkpoint storage all go through here.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <torch/optim/optimizer.h>

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/data/batch.h"
#include "fulgur/environments/cluster_environment.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/launchers/launcher.h"
#include "fulgur/precision/precision.h"

namespace fulgur {

class Module;

enum class ReduceOp { Sum, Mean, Min, Max };

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The registry name, e.g. "single_device", "ddp".
  virtual std::string name() const = 0;

  // ---- the parts (set by the AcceleratorConnector; a user-built strategy may bring its own) ----
  const std::shared_ptr<Accelerator>& accelerator() const { return accelerator_; }
  const std::shared_ptr<Precision>& precision() const { return precision_; }
  const std::shared_ptr<CheckpointIO>& checkpoint_io() const { return checkpoint_io_; }
  const std::shared_ptr<ClusterEnvironment>& cluster_environment() const {
    return cluster_environment_;
  }
  void set_accelerator(std::shared_ptr<Accelerator> accelerator);
  void set_precision(std::shared_ptr<Precision> precision);
  void set_checkpoint_io(std::shared_ptr<CheckpointIO> checkpoint_io);
  void set_cluster_environment(std::shared_ptr<ClusterEnvironment> environment);
  // The devices this strategy spreads over (one for single-device) and this process's own.
  void set_parallel_devices(std::vector<c10::Device> devices);
  const std::vector<c10::Device>& parallel_devices() const { return parallel_devices_; }
  virtual c10::Device root_device() const = 0;
  int num_nodes() const { return num_nodes_; }
  void set_num_nodes(int num_nodes) { num_nodes_ = num_nodes; }
  // How the processes come to be; null when they exist already (one process, or started by
  // torchrun/srun/mpirun). Chosen by configure_launcher once the parts are set.
  Launcher* launcher() const { return launcher_.get(); }
  virtual void configure_launcher() {}

  // ---- process facts ----
  virtual int world_size() const { return 1; }
  virtual int global_rank() const { return 0; }
  virtual int local_rank() const { return 0; }
  virtual int node_rank() const { return 0; }
  bool is_global_zero() const { return global_rank() == 0; }

  // ---- life cycle ----
  // Once per process before anything runs: make the root device current, join process groups.
  virtual void setup_environment();
  // Moves the module to the root device and converts it to the precision's dtype. Any
  // torch::nn::Module: the Trainer passes its fulgur::Module, Fabric the user's model.
  virtual void setup_module(torch::nn::Module& module);
  virtual void teardown();

  // ---- one step ----
  // Runs the Module's three transfer hooks; the precision converts floating-point inputs.
  // The transfer runs on the accelerator's copy stream when it has one.
  virtual Batch batch_to_device(Module& module, Batch batch, int64_t dataloader_idx = 0);
  // Runs `transfer`, which moves a batch to the root device, on the accelerator's copy stream
  // when it has one, the compute stream then waiting for its copies; else as it is. Fabric's
  // loaders move their batches through it.
  Batch copy_to_device(const std::function<Batch()>& transfer);
  // A graph to record the training step in (the accelerator's, for the root device); none when
  // the accelerator offers none.
  std::unique_ptr<StepGraph> make_step_graph();
  virtual torch::Tensor training_step(Module& module, Batch& batch, int64_t batch_idx);
  virtual void validation_step(Module& module, Batch& batch, int64_t batch_idx);
  virtual void test_step(Module& module, Batch& batch, int64_t batch_idx);
  virtual torch::Tensor predict_step(Module& module, Batch& batch, int64_t batch_idx);
  // Precision scaling, then the Module's `backward` hook (or plain autograd without a Module,
  // as Fabric calls it: a strategy that synchronises gradients then prepares at each backward).
  virtual void backward(const torch::Tensor& loss, Module* module = nullptr);
  virtual torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                                       const std::function<void()>& after_closure);
  // True when the last optimizer_step was skipped (mixed precision found inf/NaN gradients).
  bool optimizer_step_skipped() const { return precision_ && precision_->last_step_skipped(); }
  void clip_gradients(torch::optim::Optimizer& optimizer, double clip_val,
                      GradClipAlgorithm algorithm);
  // DDP's no_sync: while off, backward passes only accumulate gradients locally. The training
  // loop turns it off for the micro-batches that do not step. Nothing to do in one process.
  virtual void set_backward_sync(bool enabled) { (void)enabled; }

  // ---- collectives (identity on one process) ----
  virtual torch::Tensor reduce(const torch::Tensor& tensor, ReduceOp op = ReduceOp::Mean);
  // One tensor per rank, in rank order.
  virtual std::vector<torch::Tensor> all_gather(const torch::Tensor& tensor);
  virtual torch::Tensor broadcast(const torch::Tensor& tensor, int src = 0);
  virtual std::string broadcast(const std::string& text, int src = 0);
  // Rank `src`'s decision, on every rank (a name of its own: a bool overload would catch
  // string literals).
  bool broadcast_decision(bool decision, int src = 0);
  virtual void barrier(const std::string& name = "");
  // all=true: true only if every rank says true; all=false: true if any rank does.
  virtual bool reduce_boolean_decision(bool decision, bool all = true);

  // ---- checkpoints (rank 0 writes; every rank may read) ----
  virtual void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path);
  virtual CheckpointDict load_checkpoint(const std::string& path);
  virtual void remove_checkpoint(const std::string& path);

 protected:
  std::shared_ptr<Accelerator> accelerator_;
  std::shared_ptr<Precision> precision_;
  std::shared_ptr<CheckpointIO> checkpoint_io_;
  std::shared_ptr<ClusterEnvironment> cluster_environment_;
  std::vector<c10::Device> parallel_devices_;
  int num_nodes_ = 1;
  std::shared_ptr<Launcher> launcher_;
};

}  // namespace fulgur
