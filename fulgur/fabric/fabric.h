#pragma once
// fulgur::Fabric — Lightning's Fabric: for people who keep their own training loop and want
// fulgur's strategies, precisions and launching in it. A thin face over the Strategy the
// Trainer uses, built by the same AcceleratorConnector from the same flags; nothing about
// devices, precision or DDP is implemented twice.
//
//   fulgur::Fabric fabric({.accelerator = "cpu", .strategy = "ddp", .devices = 2});
//   fabric.launch([&](fulgur::Fabric& fabric) {
//     auto optimizer = fabric.setup(*model, std::make_shared<torch::optim::SGD>(...));
//     auto loader = fabric.setup_dataloaders(make_loader());
//     for (auto& batch : loader) {
//       optimizer->zero_grad();
//       auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
//       fabric.backward(loss);
//       optimizer->step();
//     }
//   });
//
// Guarantees: every rank starts from rank 0's weights and, after each synchronised backward,
// holds the mean gradient; rank 0 alone prints, logs and writes checkpoints (atomically, in
// the Trainer's format); a rank that fails stops the others and the error names it.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "fulgur/accelerators/devices.h"
#include "fulgur/connectors/flags.h"
#include "fulgur/fabric/fabric_data_loader.h"
#include "fulgur/fabric/fabric_state.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/optim/optimizer.h"
#include "fulgur/precision/precision.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {

struct FabricOptions {
  AcceleratorFlag accelerator = "auto";
  StrategyFlag strategy = "auto";
  Devices devices = "auto";
  int num_nodes = 1;
  PrecisionFlag precision{};  // unset = "32-true"
  std::vector<Plugin> plugins{};
  std::vector<std::shared_ptr<Logger>> loggers{};
};

class Fabric {
 public:
  // Raises ConfigError for flags the AcceleratorConnector refuses (as the Trainer).
  explicit Fabric(FabricOptions options = {});
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // ---- processes ----
  // Starts the other ranks when the strategy needs them (this program runs again per rank, as
  // Lightning's script launcher does), joins the process group, runs `function` in every
  // process and waits for all of them at its end. Raises what `function` raised, or a
  // DistributedError naming the rank that failed. Call once.
  void launch(const std::function<void(Fabric&)>& function);

  // ---- setup ----
  // Moves `module` to the device in the precision's dtype; under DDP every rank takes rank 0's
  // weights and backward synchronises gradients.
  void setup_module(torch::nn::Module& module);
  // setup_module, and an optimizer whose step() goes through the precision plugin (loss scaling
  // and skipped steps under 16-mixed). The optimizer may be made before setup: LibTorch moves
  // parameters in place.
  std::shared_ptr<Optimizer> setup(torch::nn::Module& module,
                                   std::shared_ptr<torch::optim::Optimizer> optimizer);
  // Shards `loader` across ranks (Lightning's DistributedSampler: one shared order, equal
  // shards) and moves its batches to the device.
  FabricDataLoader setup_dataloaders(std::shared_ptr<DataLoader> loader,
                                     bool use_distributed_sampler = true,
                                     bool move_to_device = true);

  // ---- a step ----
  // The precision's autocast for a forward pass, active until the returned scope is destroyed
  // (null when the precision has none).
  std::unique_ptr<ForwardScope> autocast();
  // Backward of `loss`, scaled by the precision, synchronising gradients across ranks unless
  // inside no_backward_sync.
  void backward(const torch::Tensor& loss);
  // Clips the gradients of `optimizer`'s parameters, after unscaling them: by value
  // (`clip_val`) or by total 2-norm (`max_norm`). Raises ConfigError unless exactly one is set.
  void clip_gradients(Optimizer& optimizer, std::optional<double> clip_val,
                      std::optional<double> max_norm = std::nullopt);
  // While the returned object lives, backward only accumulates gradients locally (the
  // micro-batches of gradient accumulation); `enabled=false` makes it a no-op.
  class BackwardSyncPause {
   public:
    BackwardSyncPause(Strategy* strategy) : strategy_(strategy) {}
    BackwardSyncPause(BackwardSyncPause&& other) noexcept : strategy_(other.strategy_) {
      other.strategy_ = nullptr;
    }
    BackwardSyncPause(const BackwardSyncPause&) = delete;
    BackwardSyncPause& operator=(const BackwardSyncPause&) = delete;
    ~BackwardSyncPause() {
      if (strategy_ != nullptr) strategy_->set_backward_sync(true);
    }

   private:
    Strategy* strategy_;
  };
  [[nodiscard]] BackwardSyncPause no_backward_sync(bool enabled = true);
  // A batch on the device, floating-point inputs in the precision's dtype.
  Batch to_device(Batch batch) const;
  torch::Tensor to_device(const torch::Tensor& tensor) const;

  // ---- checkpoints (the Trainer's format and atomicity; rank 0 writes) ----
  void save(const std::string& path, const FabricState& state);
  // Restores every module, optimizer and value of `state` from `path`, checking all of them
  // before changing any. strict: every name in `state` must be in the checkpoint and every
  // module must match it exactly. Raises CheckpointError naming the file and the problem.
  void load(const std::string& path, FabricState& state, bool strict = true);

  // ---- collectives (every rank must call them, in the same order) ----
  torch::Tensor all_reduce(const torch::Tensor& tensor, ReduceOp op = ReduceOp::Mean);
  // The tensors of all ranks stacked along a new first dimension (world_size × ...); in a world
  // of one process the tensor itself, as Lightning's. sync_grads: see Module::all_gather.
  torch::Tensor all_gather(const torch::Tensor& tensor, bool sync_grads = false);
  torch::Tensor broadcast(const torch::Tensor& tensor, int src = 0);
  std::string broadcast(const std::string& text, int src = 0);
  void barrier(const std::string& name = "");

  // ---- where this process stands ----
  int global_rank() const { return strategy_->global_rank(); }
  int local_rank() const { return strategy_->local_rank(); }
  int node_rank() const { return strategy_->node_rank(); }
  int world_size() const { return strategy_->world_size(); }
  bool is_global_zero() const { return strategy_->is_global_zero(); }
  torch::Device device() const { return strategy_->root_device(); }
  Strategy& strategy() const { return *strategy_; }

  // ---- output (rank 0 only) ----
  // `text` and a newline on stdout.
  void print(const std::string& text) const;
  // To every logger, at `step` (default: one more than the last call's).
  void log(const std::string& name, double value, std::optional<int64_t> step = std::nullopt);
  void log_dict(const std::map<std::string, double>& metrics,
                std::optional<int64_t> step = std::nullopt);
  const std::vector<std::shared_ptr<Logger>>& loggers() const { return loggers_; }

  // The same seed for every generator (torch, std) on every rank; returns it.
  static uint64_t seed_everything(uint64_t seed);

 private:
  std::shared_ptr<Strategy> strategy_;
  std::vector<std::shared_ptr<Logger>> loggers_;
  bool launched_ = false;
  int64_t log_calls_ = 0;
};

}  // namespace fulgur
