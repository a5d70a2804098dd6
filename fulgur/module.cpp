#include "fulgur/module.h"

#include <fmt/format.h>

#include <cstdio>

#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/errors.h"
#include "fulgur/metrics/metric_collection.h"
#include "fulgur/strategies/gather_ranks.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

Module::Module(std::string name) : torch::nn::Module(name), module_name_(std::move(name)) {}

Module::~Module() {
  // The Trainer may outlive the Module (declared first, or returned from a helper): unlink it.
  if (trainer_ != nullptr && trainer_->module_ == this) trainer_->module_ = nullptr;
}

void Module::validation_step(Batch&, int64_t) {
  throw MisconfigurationError(
      "the Module has validation data but does not override validation_step(); override it, "
      "or set limit_val_batches=0 to train without validation");
}

void Module::test_step(Batch&, int64_t) {
  throw MisconfigurationError("No `test_step()` method defined to run `Trainer.test`.");
}

torch::Tensor Module::predict_step(Batch&, int64_t) {
  throw MisconfigurationError("No `predict_step()` method defined to run `Trainer.predict`.");
}

void Module::log(const std::string& name, const torch::Tensor& value, LogOptions options) {
  // Like Lightning, logging outside of a Trainer is a no-op.
  if (trainer_ == nullptr) return;
  trainer_->logger_connector().log(name, value, options);
}

void Module::log(const std::string& name, double value, LogOptions options) {
  if (trainer_ == nullptr) return;
  log(name, torch::tensor(value, torch::kDouble), options);
}

void Module::log(const std::string& name, const std::shared_ptr<metrics::Metric>& metric,
                 LogOptions options) {
  if (trainer_ == nullptr) return;
  trainer_->logger_connector().log_metric(name, metric, options);
}

void Module::log_dict(const std::map<std::string, torch::Tensor>& values, LogOptions options) {
  for (const auto& [name, value] : values) log(name, value, options);
}

void Module::log_dict(const std::shared_ptr<metrics::MetricCollection>& collection,
                      LogOptions options) {
  if (!collection) throw MisconfigurationError("log_dict() got no MetricCollection");
  for (const auto& [key, metric] : collection->items()) log(key, metric, options);
}

std::vector<std::shared_ptr<Optimizer>> Module::optimizers() {
  if (trainer_ == nullptr) return {};
  return trainer_->optimizers();
}

std::shared_ptr<Optimizer> Module::optimizer() {
  auto all = optimizers();
  if (all.empty()) {
    throw MisconfigurationError("optimizer(): configure_optimizers() returned no optimizer");
  }
  return all.front();
}

std::vector<std::shared_ptr<LRScheduler>> Module::lr_schedulers() {
  std::vector<std::shared_ptr<LRScheduler>> out;
  if (trainer_ == nullptr) return out;
  for (const auto& config : trainer_->lr_scheduler_configs()) out.push_back(config.scheduler);
  return out;
}

void Module::manual_backward(const torch::Tensor& loss) {
  if (trainer_ == nullptr) {
    loss.backward();
    return;
  }
  if (automatic_optimization_) {
    throw MisconfigurationError(
        "manual_backward() is for manual optimization; call "
        "set_automatic_optimization(false) in the Module's constructor");
  }
  trainer_->run_backward(loss);
}

void Module::clip_gradients(Optimizer& optimizer, std::optional<double> gradient_clip_val,
                            std::optional<GradClipAlgorithm> gradient_clip_algorithm) {
  if (!gradient_clip_val || *gradient_clip_val <= 0) return;
  const auto algorithm = gradient_clip_algorithm.value_or(GradClipAlgorithm::Norm);
  if (trainer_ != nullptr) {
    trainer_->strategy().clip_gradients(optimizer.optimizer(), *gradient_clip_val, algorithm);
    return;
  }
  Precision().clip_gradients(optimizer.optimizer(), *gradient_clip_val, algorithm);
}

void Module::toggle_optimizer(Optimizer& optimizer) {
  std::unordered_map<const c10::TensorImpl*, bool> state;
  for (const auto& opt : optimizers()) {
    for (auto& group : opt->param_groups()) {
      for (auto& param : group.params()) {
        if (state.emplace(param.unsafeGetTensorImpl(), param.requires_grad()).second) {
          param.set_requires_grad(false);
        }
      }
    }
  }
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      const auto it = state.find(param.unsafeGetTensorImpl());
      if (it != state.end()) param.set_requires_grad(it->second);
    }
  }
  param_requires_grad_state_ = std::move(state);
}

void Module::untoggle_optimizer(Optimizer& optimizer) {
  for (const auto& opt : optimizers()) {
    if (opt.get() == &optimizer) continue;
    for (auto& group : opt->param_groups()) {
      for (auto& param : group.params()) {
        const auto it = param_requires_grad_state_.find(param.unsafeGetTensorImpl());
        if (it != param_requires_grad_state_.end()) param.set_requires_grad(it->second);
      }
    }
  }
  param_requires_grad_state_.clear();
}

Module::ToggledOptimizer::ToggledOptimizer(Module& module, Optimizer& optimizer)
    : module_(module), optimizer_(optimizer) {
  module_.toggle_optimizer(optimizer_);
}

Module::ToggledOptimizer::~ToggledOptimizer() { module_.untoggle_optimizer(optimizer_); }

Module& Module::freeze() {
  for (auto& param : parameters()) param.set_requires_grad(false);
  eval();
  return *this;
}

Module& Module::unfreeze() {
  for (auto& param : parameters()) param.set_requires_grad(true);
  train();
  return *this;
}

torch::Tensor Module::all_gather(const torch::Tensor& tensor, bool sync_grads) {
  if (trainer_ == nullptr) {
    throw MisconfigurationError(fmt::format(
        "{}.all_gather: the module is not attached to a Trainer (call it from a hook or step "
        "during fit, validate, test or predict)",
        module_name_));
  }
  return gather_ranks(trainer_->strategy(), tensor, sync_grads);
}

std::map<std::string, torch::Tensor> Module::all_gather(
    const std::map<std::string, torch::Tensor>& tensors, bool sync_grads) {
  std::map<std::string, torch::Tensor> gathered;
  for (const auto& [name, tensor] : tensors) gathered.emplace(name, all_gather(tensor, sync_grads));
  return gathered;
}

void Module::print_line(const std::string& line) {
  if (trainer_ != nullptr) {
    if (!trainer_->is_global_zero()) return;
    for (const auto& callback : trainer_->callbacks()) {
      if (auto* bar = dynamic_cast<ProgressBar*>(callback.get())) {
        bar->print(*trainer_, line);
        return;
      }
    }
  }
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

torch::Device Module::device() const {
  auto params = parameters();
  if (!params.empty()) return params.front().device();
  if (trainer_ != nullptr) return trainer_->strategy().root_device();
  return torch::kCPU;
}

int64_t Module::current_epoch() const { return trainer_ ? trainer_->current_epoch() : 0; }

int64_t Module::global_step() const { return trainer_ ? trainer_->global_step() : 0; }

void Module::on_validation_model_zero_grad() { zero_grad(/*set_to_none=*/true); }

void Module::configure_gradient_clipping(Optimizer& optimizer,
                                         std::optional<double> gradient_clip_val,
                                         std::optional<GradClipAlgorithm> algorithm) {
  clip_gradients(optimizer, gradient_clip_val, algorithm);
}

void Module::optimizer_step(int64_t, int64_t, Optimizer& optimizer, const Closure& closure) {
  optimizer.step(closure);
}

void Module::optimizer_zero_grad(int64_t, int64_t, Optimizer& optimizer) {
  optimizer.zero_grad();
}

void Module::lr_scheduler_step(LRScheduler& scheduler, std::optional<double> metric) {
  if (scheduler.needs_metric()) {
    scheduler.step(metric);
  } else {
    scheduler.step();
  }
}

Batch Module::transfer_batch_to_device(Batch batch, const torch::Device& device, int64_t) {
  auto move = [&](torch::Tensor& t) {
    if (t.defined() && t.device() != device) t = t.to(device, /*non_blocking=*/t.is_pinned());
  };
  move(batch.data);
  move(batch.target);
  return batch;
}

void Module::capture_modes() {
  captured_training_ = is_training();
  captured_modes_.clear();
  // Without self: a Module on the stack has no shared_ptr to give.
  for (const auto& m : modules(/*include_self=*/false)) {
    captured_modes_.emplace_back(m, m->is_training());
  }
}

void Module::restore_modes() {
  // train(mode) sets a module's whole subtree, so parents go first and children then set their
  // own.
  train(captured_training_);
  for (const auto& [m, training] : captured_modes_) m->train(training);
  captured_modes_.clear();
}

}  // namespace fulgur
