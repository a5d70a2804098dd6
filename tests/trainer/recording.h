#pragma once
// Test helpers: a Module and a Callback that record every hook they receive, in order.
// Hooks are recorded when they return (as Lightning's own hook-order tests do), so a hook that
// wraps others (optimizer_step around the closure) is listed after them.
#include <memory>
#include <string>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/module.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer_options.h"

namespace fulgur::testing {

using Calls = std::vector<std::string>;

// A loader of `n` samples of 4 features (regression targets), batch size 2.
inline std::shared_ptr<DataLoader> make_loader(int64_t n, int64_t batch_size = 2) {
  auto x = torch::arange(n * 4, torch::kFloat).reshape({n, 4}) / 10.0;
  auto y = x.sum(1, /*keepdim=*/true);
  return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, y),
                                      DataLoaderOptions{.batch_size = batch_size});
}

// Records what reaches a logger: (step, metrics) per call.
class MemoryLogger : public Logger {
 public:
  std::string name() const override { return "memory"; }
  std::string version() const override { return "version_0"; }
  std::string save_dir() const override { return "."; }
  std::string log_dir() const override { return "."; }
  void log_metrics(const std::map<std::string, double>& metrics, int64_t step) override {
    rows.emplace_back(step, metrics);
  }
  void log_hyperparams(const HParams&) override {}
  std::vector<std::pair<int64_t, std::map<std::string, double>>> rows;
};

// Options with nothing printed or written: no progress bar, summary, checkpoints or logger.
inline TrainerOptions quiet(TrainerOptions o) {
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  o.enable_checkpointing = false;
  o.logger = false;
  return o;
}

class RecordingCallback : public Callback {
 public:
  explicit RecordingCallback(Calls& calls) : calls_(calls) {}
  std::string name() const override { return "RecordingCallback"; }
#define FULGUR_REC(hook, ...) \
  void hook(Trainer&, Module& __VA_OPT__(, ) __VA_ARGS__) override { calls_.push_back("Callback." #hook); }
  void setup(Trainer&, Module&, const std::string& stage) override {
    calls_.push_back("Callback.setup(" + stage + ")");
  }
  void teardown(Trainer&, Module&, const std::string& stage) override {
    calls_.push_back("Callback.teardown(" + stage + ")");
  }
  FULGUR_REC(on_fit_start)
  FULGUR_REC(on_fit_end)
  FULGUR_REC(on_sanity_check_start)
  FULGUR_REC(on_sanity_check_end)
  FULGUR_REC(on_train_start)
  FULGUR_REC(on_train_end)
  FULGUR_REC(on_validation_start)
  FULGUR_REC(on_validation_end)
  FULGUR_REC(on_test_start)
  FULGUR_REC(on_test_end)
  FULGUR_REC(on_predict_start)
  FULGUR_REC(on_predict_end)
  FULGUR_REC(on_train_epoch_start)
  FULGUR_REC(on_train_epoch_end)
  FULGUR_REC(on_validation_epoch_start)
  FULGUR_REC(on_validation_epoch_end)
  FULGUR_REC(on_test_epoch_start)
  FULGUR_REC(on_test_epoch_end)
  FULGUR_REC(on_predict_epoch_start)
  FULGUR_REC(on_predict_epoch_end)
  FULGUR_REC(on_train_batch_start, Batch&, int64_t)
  FULGUR_REC(on_train_batch_end, const torch::Tensor&, Batch&, int64_t)
  FULGUR_REC(on_validation_batch_start, Batch&, int64_t)
  FULGUR_REC(on_validation_batch_end, Batch&, int64_t)
  FULGUR_REC(on_test_batch_start, Batch&, int64_t)
  FULGUR_REC(on_test_batch_end, Batch&, int64_t)
  FULGUR_REC(on_predict_batch_start, Batch&, int64_t)
  FULGUR_REC(on_predict_batch_end, const torch::Tensor&, Batch&, int64_t)
  FULGUR_REC(on_before_zero_grad, Optimizer&)
  FULGUR_REC(on_before_backward, const torch::Tensor&)
  FULGUR_REC(on_after_backward)
  FULGUR_REC(on_before_optimizer_step, Optimizer&)
#undef FULGUR_REC

 private:
  Calls& calls_;
};

// Linear regression 4 → 1 that records its hooks; loaders come from its own data hooks.
class RecordingModule : public Module {
 public:
  explicit RecordingModule(Calls& calls, int64_t train_samples = 4, int64_t val_samples = 4)
      : Module("RecordingModule"), calls_(calls), train_n_(train_samples), val_n_(val_samples) {
    layer_ = register_module("layer", torch::nn::Linear(4, 1));
  }
  bool with_scheduler = true;

  torch::Tensor training_step(Batch& batch, int64_t) override {
    auto loss = torch::mse_loss(layer_->forward(batch.data), batch.target);
    calls_.push_back("Module.training_step");
    return loss;
  }
  void validation_step(Batch& batch, int64_t) override {
    log("val_loss", torch::mse_loss(layer_->forward(batch.data), batch.target));
    calls_.push_back("Module.validation_step");
  }
  void test_step(Batch& batch, int64_t) override {
    log("test_loss", torch::mse_loss(layer_->forward(batch.data), batch.target));
    calls_.push_back("Module.test_step");
  }
  torch::Tensor predict_step(Batch& batch, int64_t) override {
    calls_.push_back("Module.predict_step");
    return layer_->forward(batch.data);
  }
  OptimizerConfig configure_optimizers() override {
    calls_.push_back("Module.configure_optimizers");
    auto opt = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.01));
    if (!with_scheduler) return opt;
    return OptimizerConfig({opt}, {SchedulerConfig{.scheduler = std::make_shared<StepLR>(*opt, 1)}});
  }

#define FULGUR_REC(hook)                        \
  void hook() override {                        \
    Module::hook();                             \
    calls_.push_back("Module." #hook);          \
  }
  FULGUR_REC(prepare_data)
  FULGUR_REC(configure_model)
  FULGUR_REC(on_fit_start)
  FULGUR_REC(on_fit_end)
  FULGUR_REC(on_train_start)
  FULGUR_REC(on_train_end)
  FULGUR_REC(on_validation_start)
  FULGUR_REC(on_validation_end)
  FULGUR_REC(on_test_start)
  FULGUR_REC(on_test_end)
  FULGUR_REC(on_predict_start)
  FULGUR_REC(on_predict_end)
  FULGUR_REC(on_train_epoch_start)
  FULGUR_REC(on_train_epoch_end)
  FULGUR_REC(on_validation_epoch_start)
  FULGUR_REC(on_validation_epoch_end)
  FULGUR_REC(on_test_epoch_start)
  FULGUR_REC(on_test_epoch_end)
  FULGUR_REC(on_predict_epoch_start)
  FULGUR_REC(on_predict_epoch_end)
  FULGUR_REC(on_validation_model_zero_grad)
  FULGUR_REC(on_validation_model_eval)
  FULGUR_REC(on_validation_model_train)
  FULGUR_REC(on_test_model_eval)
  FULGUR_REC(on_test_model_train)
  FULGUR_REC(on_predict_model_eval)
  FULGUR_REC(on_after_backward)
#undef FULGUR_REC

  std::vector<std::shared_ptr<Callback>> configure_callbacks() override {
    calls_.push_back("Module.configure_callbacks");
    return {};
  }
  void setup(const std::string& stage) override { calls_.push_back("Module.setup(" + stage + ")"); }
  void teardown(const std::string& stage) override {
    calls_.push_back("Module.teardown(" + stage + ")");
  }
  bool on_train_batch_start(Batch&, int64_t) override {
    calls_.push_back("Module.on_train_batch_start");
    return true;
  }
  void on_train_batch_end(const torch::Tensor&, Batch&, int64_t) override {
    calls_.push_back("Module.on_train_batch_end");
  }
  void on_validation_batch_start(Batch&, int64_t) override {
    calls_.push_back("Module.on_validation_batch_start");
  }
  void on_validation_batch_end(Batch&, int64_t) override {
    calls_.push_back("Module.on_validation_batch_end");
  }
  void on_test_batch_start(Batch&, int64_t) override { calls_.push_back("Module.on_test_batch_start"); }
  void on_test_batch_end(Batch&, int64_t) override { calls_.push_back("Module.on_test_batch_end"); }
  void on_predict_batch_start(Batch&, int64_t) override {
    calls_.push_back("Module.on_predict_batch_start");
  }
  void on_predict_batch_end(const torch::Tensor&, Batch&, int64_t) override {
    calls_.push_back("Module.on_predict_batch_end");
  }
  void on_before_zero_grad(Optimizer&) override { calls_.push_back("Module.on_before_zero_grad"); }
  void on_before_backward(const torch::Tensor&) override {
    calls_.push_back("Module.on_before_backward");
  }
  void backward(const torch::Tensor& loss) override {
    Module::backward(loss);
    calls_.push_back("Module.backward");
  }
  void on_before_optimizer_step(Optimizer&) override {
    calls_.push_back("Module.on_before_optimizer_step");
  }
  void configure_gradient_clipping(Optimizer& o, std::optional<double> v,
                                   std::optional<GradClipAlgorithm> a) override {
    Module::configure_gradient_clipping(o, v, a);
    calls_.push_back("Module.configure_gradient_clipping");
  }
  void optimizer_step(int64_t epoch, int64_t batch_idx, Optimizer& optimizer,
                      const Closure& closure) override {
    Module::optimizer_step(epoch, batch_idx, optimizer, closure);
    calls_.push_back("Module.optimizer_step");
  }
  void optimizer_zero_grad(int64_t epoch, int64_t batch_idx, Optimizer& optimizer) override {
    Module::optimizer_zero_grad(epoch, batch_idx, optimizer);
    calls_.push_back("Module.optimizer_zero_grad");
  }
  void lr_scheduler_step(LRScheduler& scheduler, std::optional<double> metric) override {
    Module::lr_scheduler_step(scheduler, metric);
    calls_.push_back("Module.lr_scheduler_step");
  }
  Batch on_before_batch_transfer(Batch batch, int64_t) override {
    calls_.push_back("Module.on_before_batch_transfer");
    return batch;
  }
  Batch transfer_batch_to_device(Batch batch, const torch::Device& device, int64_t idx) override {
    auto out = Module::transfer_batch_to_device(std::move(batch), device, idx);
    calls_.push_back("Module.transfer_batch_to_device");
    return out;
  }
  Batch on_after_batch_transfer(Batch batch, int64_t) override {
    calls_.push_back("Module.on_after_batch_transfer");
    return batch;
  }
  std::shared_ptr<DataLoader> train_dataloader() override {
    calls_.push_back("Module.train_dataloader");
    return make_loader(train_n_);
  }
  std::shared_ptr<DataLoader> val_dataloader() override {
    calls_.push_back("Module.val_dataloader");
    return val_n_ > 0 ? make_loader(val_n_) : nullptr;
  }
  std::shared_ptr<DataLoader> test_dataloader() override {
    calls_.push_back("Module.test_dataloader");
    return make_loader(val_n_);
  }
  std::shared_ptr<DataLoader> predict_dataloader() override {
    calls_.push_back("Module.predict_dataloader");
    return make_loader(val_n_);
  }

 private:
  Calls& calls_;
  int64_t train_n_;
  int64_t val_n_;
  torch::nn::Linear layer_{nullptr};
};

}  // namespace fulgur::testing
