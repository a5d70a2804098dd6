#pragma once
// ParallelStrategy: the base of strategies that run one process per device. The ranks and the
// world come from the ClusterEnvironment, the root device is this process's own among the
// parallel devices (its local rank), and the collectives go through a process group joined in
// setup_environment. With a world of one process every collective is the identity.
#include <chrono>
#include <memory>

#include "fulgur/strategies/strategy.h"

namespace fulgur {

class LayerSync;

namespace compat {
class ProcessGroup;
}  // namespace compat

class ParallelStrategy : public Strategy {
 public:
  // `timeout` bounds the rendezvous and every collective (Lightning's default: 30 minutes).
  explicit ParallelStrategy(std::chrono::milliseconds timeout = std::chrono::minutes(30));
  ~ParallelStrategy() override;

  c10::Device root_device() const override;
  // devices × num_nodes, as the connector resolved them.
  int world_size() const override;
  int global_rank() const override;
  int local_rank() const override;
  int node_rank() const override;

  // Tells the environment its ranks (node_rank × devices + local_rank) and joins the group.
  void setup_environment() override;
  // Moves the module, then applies the layer sync (if any) to it.
  void setup_module(torch::nn::Module& module) override;
  // Reverts the layer sync and leaves the group.
  void teardown() override;

  // Lightning's `_layer_sync`: set by the connector under sync_batchnorm=true.
  void set_layer_sync(std::shared_ptr<LayerSync> layer_sync) {
    layer_sync_ = std::move(layer_sync);
  }
  const std::shared_ptr<LayerSync>& layer_sync() const { return layer_sync_; }

  torch::Tensor reduce(const torch::Tensor& tensor, ReduceOp op = ReduceOp::Mean) override;
  std::vector<torch::Tensor> all_gather(const torch::Tensor& tensor) override;
  torch::Tensor broadcast(const torch::Tensor& tensor, int src = 0) override;
  std::string broadcast(const std::string& text, int src = 0) override;
  void barrier(const std::string& name = "") override;
  bool reduce_boolean_decision(bool decision, bool all = true) override;

 protected:
  // Null before setup_environment and in a world of one process.
  compat::ProcessGroup* process_group() const { return group_.get(); }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  ClusterEnvironment& environment() const;

  std::chrono::milliseconds timeout_;
  std::unique_ptr<compat::ProcessGroup> group_;
  std::shared_ptr<LayerSync> layer_sync_;
};

}  // namespace fulgur
