#include "fulgur/fabric/fabric.h"

#include <iostream>

#include <fmt/format.h>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/errors.h"
#include "fulgur/launchers/error_file.h"
#include "fulgur/optim/optimizer_state.h"
#include "fulgur/seed.h"
#include "fulgur/strategies/gather_ranks.h"

namespace fulgur {

Fabric::Fabric(FabricOptions options)
    : strategy_(AcceleratorConnector({.accelerator = options.accelerator,
                                      .strategy = options.strategy,
                                      .devices = options.devices,
                                      .num_nodes = options.num_nodes,
                                      .precision = options.precision,
                                      .plugins = options.plugins})
                    .strategy()),
      loggers_(std::move(options.loggers)) {}

Fabric::~Fabric() {
  try {
    for (const auto& logger : loggers_) logger->finalize("success");
    strategy_->teardown();
  } catch (...) {
  }
}

// ---------------------------------------------------------------- processes

void Fabric::launch(const std::function<void(Fabric&)>& function) {
  if (launched_) throw ConfigError("Fabric::launch was called twice; call it once");
  launched_ = true;
  auto run = [&] {
    strategy_->setup_environment();
    if (function) function(*this);
    // Every rank ends the function before any returns: rank 0 leaving early would end the job.
    strategy_->barrier("Fabric::launch");
  };
  try {
    if (Launcher* launcher = strategy_->launcher()) {
      launcher->launch(run);
    } else {
      run();
    }
  } catch (const std::exception& error) {
    error_file::record(error.what());  // a rank started by the launcher tells it what failed
    throw;
  }
}

// ---------------------------------------------------------------- setup

void Fabric::setup_module(torch::nn::Module& module) { strategy_->setup_module(module); }

std::shared_ptr<Optimizer> Fabric::setup(torch::nn::Module& module,
                                         std::shared_ptr<torch::optim::Optimizer> optimizer) {
  if (!optimizer) throw ConfigError("Fabric::setup got no optimizer");
  setup_module(module);
  auto wrapped = std::make_shared<Optimizer>(std::move(optimizer));
  wrapped->set_step_fn([this](torch::optim::Optimizer& o, const Closure& closure) {
    return strategy_->optimizer_step(o, closure, nullptr);
  });
  return wrapped;
}

FabricDataLoader Fabric::setup_dataloaders(std::shared_ptr<DataLoader> loader,
                                           bool use_distributed_sampler, bool move_to_device) {
  if (!loader) throw ConfigError("Fabric::setup_dataloaders got no loader");
  if (use_distributed_sampler && world_size() > 1) {
    auto& o = loader->mutable_options();
    o.num_replicas = world_size();
    o.rank = global_rank();
    o.even_shards = true;
  }
  FabricDataLoader::Transfer transfer;
  if (move_to_device) {
    if (device().is_cuda()) loader->mutable_options().pin_memory = true;
    // On the accelerator's copy stream when it has one, as the Trainer's batches.
    transfer = [this](Batch batch) {
      return strategy_->copy_to_device([&] { return to_device(std::move(batch)); });
    };
  }
  return FabricDataLoader(std::move(loader), std::move(transfer));
}

// ---------------------------------------------------------------- a step

std::unique_ptr<ForwardScope> Fabric::autocast() { return strategy_->precision()->forward_context(); }

void Fabric::backward(const torch::Tensor& loss) { strategy_->backward(loss, nullptr); }

void Fabric::clip_gradients(Optimizer& optimizer, std::optional<double> clip_val,
                            std::optional<double> max_norm) {
  if (clip_val.has_value() == max_norm.has_value()) {
    throw ConfigError(clip_val ? "Only one of clip_val or max_norm can be set"
                               : "You have to specify either clip_val or max_norm");
  }
  strategy_->precision()->unscale_gradients(optimizer.optimizer());
  strategy_->clip_gradients(optimizer.optimizer(), clip_val ? *clip_val : *max_norm,
                            clip_val ? GradClipAlgorithm::Value : GradClipAlgorithm::Norm);
}

Fabric::BackwardSyncPause Fabric::no_backward_sync(bool enabled) {
  if (!enabled) return BackwardSyncPause(nullptr);
  strategy_->set_backward_sync(false);
  return BackwardSyncPause(strategy_.get());
}

torch::Tensor Fabric::to_device(const torch::Tensor& tensor) const {
  if (!tensor.defined()) return tensor;
  const bool non_blocking = tensor.is_pinned();
  return strategy_->precision()->convert_input(tensor.to(device(), non_blocking));
}

Batch Fabric::to_device(Batch batch) const {
  batch.data = to_device(batch.data);
  batch.target = to_device(batch.target);
  return batch;
}

// ---------------------------------------------------------------- checkpoints

void Fabric::save(const std::string& path, const FabricState& state) {
  auto checkpoint = make_checkpoint_dict();
  for (const auto& [name, module] : state.modules) {
    checkpoint.insert(name, CheckpointConnector::module_state_dict(*module));
  }
  for (const auto& [name, optimizer] : state.optimizers) {
    checkpoint.insert(name, optimizer_state_dict(*optimizer));
  }
  for (const auto& [name, value] : state.values) checkpoint.insert(name, value);
  strategy_->save_checkpoint(checkpoint, path);
  strategy_->barrier("Fabric::save");
}

void Fabric::load(const std::string& path, FabricState& state, bool strict) {
  const auto checkpoint = strategy_->load_checkpoint(path);
  auto entry = [&](const std::string& name) -> std::optional<c10::IValue> {
    if (checkpoint.contains(name)) return checkpoint.at(name);
    if (strict) {
      throw CheckpointError(fmt::format("{} has no \"{}\" (load with strict=false to skip it)",
                                        path, name));
    }
    return std::nullopt;
  };
  // Everything is checked before anything changes.
  for (const auto& [name, module] : state.modules) {
    if (auto value = entry(name)) {
      if (!value->isGenericDict()) {
        throw CheckpointError(fmt::format("{}: \"{}\" is not a module's state", path, name));
      }
      CheckpointConnector::check_module_state_dict(*module, value->toGenericDict(), strict,
                                                   fmt::format("{} (\"{}\")", path, name));
    }
  }
  for (const auto& [name, optimizer] : state.optimizers) {
    if (auto value = entry(name)) {
      check_optimizer_state_dict(*optimizer, *value, fmt::format("{} (\"{}\")", path, name));
    }
  }
  for (const auto& [name, value] : state.values) entry(name);

  for (const auto& [name, module] : state.modules) {
    if (checkpoint.contains(name)) {
      CheckpointConnector::load_module_state_dict(*module, checkpoint.at(name).toGenericDict(),
                                                  strict, path);
    }
  }
  for (const auto& [name, optimizer] : state.optimizers) {
    if (checkpoint.contains(name)) load_optimizer_state_dict(*optimizer, checkpoint.at(name), path);
  }
  for (auto& [name, value] : state.values) {
    if (checkpoint.contains(name)) value = checkpoint.at(name);
  }
}

// ---------------------------------------------------------------- collectives

torch::Tensor Fabric::all_reduce(const torch::Tensor& tensor, ReduceOp op) {
  return strategy_->reduce(tensor, op);
}

torch::Tensor Fabric::all_gather(const torch::Tensor& tensor, bool sync_grads) {
  return gather_ranks(*strategy_, tensor, sync_grads);
}

torch::Tensor Fabric::broadcast(const torch::Tensor& tensor, int src) {
  return strategy_->broadcast(tensor, src);
}

std::string Fabric::broadcast(const std::string& text, int src) {
  return strategy_->broadcast(text, src);
}

void Fabric::barrier(const std::string& name) { strategy_->barrier(name); }

// ---------------------------------------------------------------- output

void Fabric::print(const std::string& text) const {
  if (is_global_zero()) std::cout << text << '\n' << std::flush;
}

void Fabric::log(const std::string& name, double value, std::optional<int64_t> step) {
  log_dict({{name, value}}, step);
}

void Fabric::log_dict(const std::map<std::string, double>& metrics, std::optional<int64_t> step) {
  const int64_t at = step.value_or(log_calls_);
  ++log_calls_;
  if (!is_global_zero()) return;
  for (const auto& logger : loggers_) logger->log_metrics(metrics, at);
}

uint64_t Fabric::seed_everything(uint64_t seed) {
  fulgur::seed_everything(seed);
  return seed;
}

}  // namespace fulgur
