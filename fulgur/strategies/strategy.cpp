#include "fulgur/strategies/strategy.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/module.h"

namespace fulgur {
namespace {

template <typename T>
T& require(const std::shared_ptr<T>& part, const Strategy& strategy, const char* what,
           const char* setter) {
  if (!part) {
    throw ConfigError(
        fmt::format("strategy \"{}\" has no {}; build it through the Trainer "
                    "(the AcceleratorConnector fills it in) or call {}",
                    strategy.name(), what, setter));
  }
  return *part;
}

// Runs `transfer` with `copy` as its device's current stream, so that the copies it queues run
// on the copy engine beside the kernels already queued on the compute stream (the one current
// before). The compute stream then waits for them, and the caching allocator learns that the
// compute stream uses the batch's memory, which was allocated on the copy stream: otherwise it
// could hand that memory out again while the compute stream's kernels still read it.
template <typename Transfer>
Batch transfer_on(const c10::Stream& copy, Transfer&& transfer) {
  const c10::impl::VirtualGuardImpl device(copy.device_type());
  const c10::Stream compute = device.getStream(copy.device());
  Batch batch;
  {
    const c10::StreamGuard on_copy(copy);
    batch = transfer();
  }
  c10::Event copied(copy.device_type());
  copied.record(copy);
  copied.block(compute);
  for (const torch::Tensor* t : {&batch.data, &batch.target}) {
    if (t->defined() && t->device() == copy.device() && t->has_storage()) {
      device.recordDataPtrOnStream(t->storage().data_ptr(), compute);
    }
  }
  return batch;
}

}  // namespace

void Strategy::set_accelerator(std::shared_ptr<Accelerator> accelerator) {
  accelerator_ = std::move(accelerator);
}
void Strategy::set_precision(std::shared_ptr<Precision> precision) {
  precision_ = std::move(precision);
}
void Strategy::set_checkpoint_io(std::shared_ptr<CheckpointIO> checkpoint_io) {
  checkpoint_io_ = std::move(checkpoint_io);
}
void Strategy::set_cluster_environment(std::shared_ptr<ClusterEnvironment> environment) {
  cluster_environment_ = std::move(environment);
}
void Strategy::set_parallel_devices(std::vector<c10::Device> devices) {
  parallel_devices_ = std::move(devices);
}

void Strategy::setup_environment() {
  require(accelerator_, *this, "accelerator", "set_accelerator()").setup_device(root_device());
}

void Strategy::setup_module(torch::nn::Module& module) {
  require(precision_, *this, "precision plugin", "set_precision()").convert_module(module);
  module.to(root_device());
}

void Strategy::teardown() {
  if (checkpoint_io_) checkpoint_io_->teardown();
  if (accelerator_) accelerator_->teardown();
}

Batch Strategy::batch_to_device(Module& module, Batch batch, int64_t dataloader_idx) {
  auto& precision = require(precision_, *this, "precision plugin", "set_precision()");
  batch = module.on_before_batch_transfer(std::move(batch), dataloader_idx);
  const c10::Device device = root_device();
  auto transfer = [&] {
    return module.transfer_batch_to_device(std::move(batch), device, dataloader_idx);
  };
  const auto copy_stream = accelerator_ ? accelerator_->copy_stream(device) : std::nullopt;
  batch = copy_stream ? transfer_on(*copy_stream, transfer) : transfer();
  // On the compute stream: what this hook queues (augmentation on the GPU, say) runs in order
  // with the step's kernels.
  batch = module.on_after_batch_transfer(std::move(batch), dataloader_idx);
  // As Lightning converts every floating tensor of the batch: float targets (regression) must
  // match the model's dtype too; integer labels are left alone by convert_input.
  if (batch.data.defined()) batch.data = precision.convert_input(batch.data);
  if (batch.target.defined()) batch.target = precision.convert_input(batch.target);
  return batch;
}

Batch Strategy::copy_to_device(const std::function<Batch()>& transfer) {
  const auto copy_stream = accelerator_ ? accelerator_->copy_stream(root_device()) : std::nullopt;
  return copy_stream ? transfer_on(*copy_stream, transfer) : transfer();
}

std::unique_ptr<StepGraph> Strategy::make_step_graph() {
  return accelerator_ ? accelerator_->make_step_graph(root_device()) : nullptr;
}

torch::Tensor Strategy::training_step(Module& module, Batch& batch, int64_t batch_idx) {
  auto scope = require(precision_, *this, "precision plugin", "set_precision()").forward_context();
  return module.training_step(batch, batch_idx);
}

void Strategy::validation_step(Module& module, Batch& batch, int64_t batch_idx) {
  auto scope = require(precision_, *this, "precision plugin", "set_precision()").forward_context();
  module.validation_step(batch, batch_idx);
}

void Strategy::test_step(Module& module, Batch& batch, int64_t batch_idx) {
  auto scope = require(precision_, *this, "precision plugin", "set_precision()").forward_context();
  module.test_step(batch, batch_idx);
}

torch::Tensor Strategy::predict_step(Module& module, Batch& batch, int64_t batch_idx) {
  auto scope = require(precision_, *this, "precision plugin", "set_precision()").forward_context();
  return module.predict_step(batch, batch_idx);
}

void Strategy::backward(const torch::Tensor& loss, Module* module) {
  auto& precision = require(precision_, *this, "precision plugin", "set_precision()");
  precision.backward(precision.pre_backward(loss), module);
}

torch::Tensor Strategy::optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                                       const std::function<void()>& after_closure) {
  return require(precision_, *this, "precision plugin", "set_precision()")
      .optimizer_step(optimizer, closure, after_closure);
}

void Strategy::clip_gradients(torch::optim::Optimizer& optimizer, double clip_val,
                              GradClipAlgorithm algorithm) {
  require(precision_, *this, "precision plugin", "set_precision()")
      .clip_gradients(optimizer, clip_val, algorithm);
}

torch::Tensor Strategy::reduce(const torch::Tensor& tensor, ReduceOp op) {
  (void)op;
  return tensor;
}

std::vector<torch::Tensor> Strategy::all_gather(const torch::Tensor& tensor) { return {tensor}; }

torch::Tensor Strategy::broadcast(const torch::Tensor& tensor, int src) {
  (void)src;
  return tensor;
}

std::string Strategy::broadcast(const std::string& text, int src) {
  (void)src;
  return text;
}

bool Strategy::broadcast_decision(bool decision, int src) {
  return broadcast(std::string(decision ? "1" : "0"), src) == "1";
}

void Strategy::barrier(const std::string& name) { (void)name; }

bool Strategy::reduce_boolean_decision(bool decision, bool all) {
  (void)all;
  return decision;
}

void Strategy::save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) {
  // One writer: every rank holds the same state, and several writers would race on the file.
  if (!is_global_zero()) return;
  require(checkpoint_io_, *this, "checkpoint IO", "set_checkpoint_io()")
      .save_checkpoint(checkpoint, path);
}

CheckpointDict Strategy::load_checkpoint(const std::string& path) {
  return require(checkpoint_io_, *this, "checkpoint IO", "set_checkpoint_io()")
      .load_checkpoint(path);
}

void Strategy::remove_checkpoint(const std::string& path) {
  // Rank 0 wrote it, rank 0 removes it (as Lightning).
  if (!is_global_zero()) return;
  require(checkpoint_io_, *this, "checkpoint IO", "set_checkpoint_io()").remove_checkpoint(path);
}

}  // namespace fulgur
