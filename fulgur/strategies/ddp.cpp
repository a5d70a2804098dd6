#include "fulgur/strategies/ddp.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "fulgur/compat/gradient_reducer.h"
#include "fulgur/compat/process_group.h"
#include "fulgur/errors.h"
#include "fulgur/launchers/child_supervisor.h"
#include "fulgur/launchers/subprocess_script_launcher.h"
#include "fulgur/module.h"

namespace fulgur {

DDPStrategy::DDPStrategy(DDPOptions options)
    : ParallelStrategy(options.timeout), options_(std::move(options)) {
  const auto& backend = options_.process_group_backend;
  if (backend == "nccl") {
    throw ConfigError(
        "DDPOptions{.process_group_backend = \"nccl\"} is not available yet: fulgur's process "
        "group speaks Gloo (CUDA tensors travel through host memory); use \"gloo\"");
  }
  if (backend != "gloo") {
    throw ConfigError(fmt::format(
        "DDPOptions{{.process_group_backend = \"{}\"}} is not a c10d backend fulgur knows; "
        "use \"gloo\"",
        backend));
  }
}

DDPStrategy::~DDPStrategy() = default;

void DDPStrategy::configure_launcher() {
  const auto& env = cluster_environment();
  // After the first launch this process has LOCAL_RANK=0 and looks externally started; its
  // launcher keeps supervising the ranks it started.
  if (world_size() > 1 && env &&
      (!env->creates_processes_externally() || ChildSupervisor::instance().has_children())) {
    launcher_ = std::make_shared<SubprocessScriptLauncher>(
        env, static_cast<int>(parallel_devices().size()), num_nodes());
  }
}

void DDPStrategy::setup_environment() {
  const auto& env = cluster_environment();
  if (world_size() > 1 && env && !env->creates_processes_externally()) {
    // Waiting for processes nobody starts would hang until the timeout.
    throw ConfigError(fmt::format(
        "strategy=\"ddp\" with devices={} and num_nodes={} needs {} processes: run it through "
        "the Trainer (its launcher starts them) or start them with torchrun "
        "(--nproc-per-node={} --nnodes={}), srun or mpirun",
        parallel_devices().size(), num_nodes(), world_size(), parallel_devices().size(),
        num_nodes()));
  }
  ParallelStrategy::setup_environment();
}

void DDPStrategy::setup_module(torch::nn::Module& module) {
  ParallelStrategy::setup_module(module);
  if (process_group() == nullptr) return;
  {
    // Every rank starts from the same weights and buffers: rank 0's, as PyTorch's DDP.
    torch::NoGradGuard no_grad;
    for (auto& tensor : module.parameters()) tensor.copy_(broadcast(tensor, 0));
    for (auto& tensor : module.buffers()) tensor.copy_(broadcast(tensor, 0));
  }
  std::vector<at::Tensor> parameters;
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    parameters.push_back(item.value());
    names.push_back(item.key());
  }
  if (parameters.empty()) return;
  reducer_ = std::make_unique<compat::GradientReducer>(
      std::move(parameters), names, *process_group(),
      compat::GradientReducerOptions{
          .bucket_cap_bytes = static_cast<int64_t>(options_.bucket_cap_mb * 1024 * 1024),
          .find_unused_parameters = options_.find_unused_parameters});
}

void DDPStrategy::teardown() {
  reducer_.reset();
  ParallelStrategy::teardown();
}

torch::Tensor DDPStrategy::training_step(Module& module, Batch& batch, int64_t batch_idx) {
  // Automatic optimization: the backward of this step's loss synchronises unless the loop is
  // accumulating. Manual optimization prepares at each backward instead.
  const bool sync = reducer_ && backward_sync_ && module.automatic_optimization() &&
                    torch::GradMode::is_enabled();
  if (sync) reducer_->prepare_for_forward();
  auto loss = ParallelStrategy::training_step(module, batch, batch_idx);
  if (sync && loss.defined()) reducer_->prepare_for_backward(loss);
  return loss;
}

void DDPStrategy::backward(const torch::Tensor& loss, Module* module) {
  // Automatic optimization prepared in training_step; manual optimization and Fabric (no
  // Module) prepare here.
  if (reducer_ && backward_sync_ && (module == nullptr || !module->automatic_optimization())) {
    reducer_->prepare_for_forward();
    reducer_->prepare_for_backward(loss);
  }
  ParallelStrategy::backward(loss, module);
}

}  // namespace fulgur
