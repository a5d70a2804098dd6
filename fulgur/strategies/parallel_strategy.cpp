#include "fulgur/strategies/parallel_strategy.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "fulgur/compat/process_group.h"
#include "fulgur/errors.h"
#include "fulgur/layer_sync/layer_sync.h"

namespace fulgur {
namespace {

// Collectives run on the CPU with Gloo; tensors on another device travel through host memory.
torch::Tensor on_cpu(const torch::Tensor& tensor) {
  return tensor.device().is_cpu() ? tensor.detach().clone() : tensor.detach().to(torch::kCPU);
}

// Lightning's _set_num_threads_if_needed: N processes on one machine each take 1/N of its cores
// for LibTorch's intra-op pool, unless OMP_NUM_THREADS says otherwise; oversubscribed pools
// make every rank slower than one process.
void share_cpu_threads(int processes_per_node) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr) return;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max(1, cores / processes_per_node);
  torch::set_num_threads(threads);
  ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

}  // namespace

ParallelStrategy::ParallelStrategy(std::chrono::milliseconds timeout) : timeout_(timeout) {}

ParallelStrategy::~ParallelStrategy() = default;

ClusterEnvironment& ParallelStrategy::environment() const {
  if (!cluster_environment_) {
    throw ConfigError(fmt::format(
        "strategy \"{}\" has no cluster environment; build it through the Trainer (the "
        "AcceleratorConnector fills it in) or call set_cluster_environment()",
        name()));
  }
  return *cluster_environment_;
}

c10::Device ParallelStrategy::root_device() const {
  const auto& devices = parallel_devices();
  if (devices.empty()) return c10::Device(c10::kCPU);
  const int local = local_rank();
  if (local >= static_cast<int>(devices.size())) {
    throw ConfigError(fmt::format(
        "this process has LOCAL_RANK={}, but strategy \"{}\" has only {} device(s) per node; "
        "start at most devices={} processes per node",
        local, name(), devices.size(), devices.size()));
  }
  return devices[static_cast<size_t>(local)];
}

int ParallelStrategy::world_size() const {
  return num_nodes() * std::max<int>(1, static_cast<int>(parallel_devices().size()));
}
int ParallelStrategy::global_rank() const {
  return cluster_environment_ ? cluster_environment_->global_rank() : 0;
}
int ParallelStrategy::local_rank() const {
  return cluster_environment_ ? cluster_environment_->local_rank() : 0;
}
int ParallelStrategy::node_rank() const {
  return cluster_environment_ ? cluster_environment_->node_rank() : 0;
}

void ParallelStrategy::setup_environment() {
  Strategy::setup_environment();
  auto& env = environment();
  const int per_node = std::max<int>(1, static_cast<int>(parallel_devices().size()));
  env.set_global_rank(env.node_rank() * per_node + env.local_rank());
  env.set_world_size(world_size());
  if (world_size() == 1 || group_) return;
  share_cpu_threads(per_node);
  group_ = std::make_unique<compat::ProcessGroup>(compat::ProcessGroupOptions{
      .address = env.main_address(),
      .port = env.main_port(),
      .rank = env.global_rank(),
      .world_size = world_size(),
      .timeout = timeout_});
}

void ParallelStrategy::setup_module(torch::nn::Module& module) {
  Strategy::setup_module(module);
  if (layer_sync_) layer_sync_->apply(module, *this);
}

void ParallelStrategy::teardown() {
  if (layer_sync_) layer_sync_->revert();
  Strategy::teardown();
  group_.reset();
}

torch::Tensor ParallelStrategy::reduce(const torch::Tensor& tensor, ReduceOp op) {
  if (!group_) return tensor;
  auto out = on_cpu(tensor);
  switch (op) {
    case ReduceOp::Sum:
      group_->all_reduce(out, compat::CollectiveOp::Sum);
      break;
    case ReduceOp::Mean:
      // Integer tensors average as floats, as Lightning's sync_dist does.
      if (!out.is_floating_point()) out = out.to(torch::kFloat32);
      group_->all_reduce(out, compat::CollectiveOp::Sum);
      out.div_(world_size());
      break;
    case ReduceOp::Min:
      group_->all_reduce(out, compat::CollectiveOp::Min);
      break;
    case ReduceOp::Max:
      group_->all_reduce(out, compat::CollectiveOp::Max);
      break;
  }
  return out.to(tensor.device());
}

std::vector<torch::Tensor> ParallelStrategy::all_gather(const torch::Tensor& tensor) {
  if (!group_) return {tensor};
  auto gathered = group_->all_gather(on_cpu(tensor));
  for (auto& t : gathered) t = t.to(tensor.device());
  return gathered;
}

torch::Tensor ParallelStrategy::broadcast(const torch::Tensor& tensor, int src) {
  if (!group_) return tensor;
  auto out = on_cpu(tensor);
  group_->broadcast(out, src);
  return out.to(tensor.device());
}

std::string ParallelStrategy::broadcast(const std::string& text, int src) {
  if (!group_) return text;
  // The length first, so that every rank can make room for the bytes.
  auto length = torch::tensor({static_cast<int64_t>(text.size())}, torch::kInt64);
  group_->broadcast(length, src);
  auto bytes = torch::zeros({length.item<int64_t>()}, torch::kUInt8);
  if (global_rank() == src) {
    std::memcpy(bytes.data_ptr<uint8_t>(), text.data(), text.size());
  }
  group_->broadcast(bytes, src);
  return std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                     static_cast<size_t>(bytes.numel()));
}

void ParallelStrategy::barrier(const std::string& name) {
  (void)name;
  if (group_) group_->barrier();
}

bool ParallelStrategy::reduce_boolean_decision(bool decision, bool all) {
  if (!group_) return decision;
  auto votes = torch::tensor({decision ? int64_t{1} : int64_t{0}}, torch::kInt64);
  group_->all_reduce(votes, compat::CollectiveOp::Sum);
  const int64_t yes = votes.item<int64_t>();
  return all ? yes == world_size() : yes > 0;
}

}  // namespace fulgur
