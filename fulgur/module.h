#pragma once
// fulgur::Module — Lightning's LightningModule: a torch::nn::Module that also says how to train
// itself (the steps, the optimizers) and may react to every moment of training (the hooks).
//
// Contract: override `training_step` and `configure_optimizers`; override `validation_step`,
// `test_step`, `predict_step` for the stages you run. Hooks default to doing nothing. The
// Trainer calls every hook in Lightning's order; for the same hook, callbacks run first.
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/nn/module.h>

#include "fulgur/data/batch.h"
#include "fulgur/hparams.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/loops/log_options.h"
#include "fulgur/optim/grad_clip.h"
#include "fulgur/optim/optimizer.h"
#include "fulgur/optim/optimizer_config.h"

namespace fulgur {

class Trainer;
class Callback;
class DataLoader;
namespace metrics {
class Metric;
class MetricCollection;
}  // namespace metrics

class Module : public torch::nn::Module {
 public:
  explicit Module(std::string name = "Module");
  ~Module() override;

  // ---- the research ----
  virtual torch::Tensor training_step(Batch& batch, int64_t batch_idx) = 0;
  virtual void validation_step(Batch& batch, int64_t batch_idx);
  virtual void test_step(Batch& batch, int64_t batch_idx);
  virtual torch::Tensor predict_step(Batch& batch, int64_t batch_idx);
  virtual OptimizerConfig configure_optimizers() = 0;

  // ---- logging ----
  void log(const std::string& name, const torch::Tensor& value, LogOptions options = {});
  void log(const std::string& name, double value, LogOptions options = {});
  void log_dict(const std::map<std::string, torch::Tensor>& values, LogOptions options = {});
  // A metric object, as Lightning logs torchmetrics: the step value is the metric's value on
  // this batch; the epoch value is compute() over the epoch's updates (synchronised across
  // ranks), after which the Trainer resets the metric.
  void log(const std::string& name, const std::shared_ptr<metrics::Metric>& metric,
           LogOptions options = {});
  // Each metric of the collection, as log(key, metric) under its compute() key (Lightning's
  // log_dict of a MetricCollection).
  void log_dict(const std::shared_ptr<metrics::MetricCollection>& collection,
                LogOptions options = {});

  // ---- optimization ----
  bool automatic_optimization() const { return automatic_optimization_; }
  void set_automatic_optimization(bool on) { automatic_optimization_ = on; }
  // The optimizers and schedulers from configure_optimizers, wrapped for the Strategy.
  std::vector<std::shared_ptr<Optimizer>> optimizers();
  std::shared_ptr<Optimizer> optimizer();  // the first one
  std::vector<std::shared_ptr<LRScheduler>> lr_schedulers();
  // Manual optimization: backward through the Strategy (precision scaling, hooks).
  void manual_backward(const torch::Tensor& loss);
  // Clips the gradients of `optimizer`'s parameters through the precision plugin.
  void clip_gradients(Optimizer& optimizer, std::optional<double> gradient_clip_val,
                      std::optional<GradClipAlgorithm> gradient_clip_algorithm = std::nullopt);
  // Several optimizers (a GAN): while `optimizer` is toggled only its parameters require
  // gradients, so a backward leaves no gradients on the others'. Every parameter of the
  // Trainer's optimizers is noted first and set back by untoggle_optimizer, so one frozen in
  // configure_optimizers stays frozen. As Lightning's.
  void toggle_optimizer(Optimizer& optimizer);
  void untoggle_optimizer(Optimizer& optimizer);
  // Lightning's `with self.toggled_optimizer(opt):` — toggles now, untoggles at scope exit.
  class ToggledOptimizer {
   public:
    ToggledOptimizer(Module& module, Optimizer& optimizer);
    ~ToggledOptimizer();
    ToggledOptimizer(const ToggledOptimizer&) = delete;
    ToggledOptimizer& operator=(const ToggledOptimizer&) = delete;

   private:
    Module& module_;
    Optimizer& optimizer_;
  };
  [[nodiscard]] ToggledOptimizer toggled_optimizer(Optimizer& optimizer) {
    return ToggledOptimizer(*this, optimizer);
  }

  // ---- inference ----
  // Every parameter stops requiring gradients and the module goes to eval mode; unfreeze()
  // undoes both (train mode). As Lightning's freeze()/unfreeze().
  Module& freeze();
  Module& unfreeze();

  // Lightning's self.print: the arguments, separated by spaces, on global rank 0 only; above
  // the progress bar when the Trainer has one (the bar is drawn again below the line).
  template <typename... Args>
  void print(const Args&... args) {
    std::ostringstream line;
    const char* separator = "";
    ((line << separator << args, separator = " "), ...);
    print_line(line.str());
  }

  // ---- collectives (every rank must call them, with tensors of the same shapes) ----
  // Lightning's self.all_gather: every rank's tensor stacked along a new first dimension
  // (world_size × ...); in a world of one process the tensor itself. sync_grads keeps the result
  // in the autograd graph, gradients flowing back to each rank's tensor (every rank must then
  // run backward through it); without it the result is detached. Needs a Trainer.
  torch::Tensor all_gather(const torch::Tensor& tensor, bool sync_grads = false);
  // The same for each tensor of a dict, in the dict's (sorted) order on every rank.
  std::map<std::string, torch::Tensor> all_gather(
      const std::map<std::string, torch::Tensor>& tensors, bool sync_grads = false);

  // ---- checkpoints ----
  // Lightning's strict_loading: when false, restoring from a checkpoint (fit, validate, test,
  // predict) loads the weights whose names match and ignores missing and unexpected ones.
  // Shapes must still match.
  bool strict_loading() const { return strict_loading_; }
  void set_strict_loading(bool on) { strict_loading_ = on; }

  // ---- hyperparameters ----
  void save_hyperparameters(HParams hparams) { hparams_ = std::move(hparams); }
  const HParams& hparams() const { return hparams_; }

  // ---- the trainer this module is attached to (null when none) ----
  Trainer* trainer() const { return trainer_; }
  torch::Device device() const;
  int64_t current_epoch() const;
  int64_t global_step() const;
  const std::string& module_name() const { return module_name_; }

  // ---- hooks (Lightning's names and order) ----
  virtual void prepare_data() {}
  virtual void setup(const std::string& stage) { (void)stage; }
  virtual void teardown(const std::string& stage) { (void)stage; }
  virtual void configure_model() {}
  virtual std::vector<std::shared_ptr<Callback>> configure_callbacks() { return {}; }

  virtual void on_fit_start() {}
  virtual void on_fit_end() {}
  virtual void on_train_start() {}
  virtual void on_train_end() {}
  virtual void on_validation_start() {}
  virtual void on_validation_end() {}
  virtual void on_test_start() {}
  virtual void on_test_end() {}
  virtual void on_predict_start() {}
  virtual void on_predict_end() {}

  virtual void on_train_epoch_start() {}
  virtual void on_train_epoch_end() {}
  virtual void on_validation_epoch_start() {}
  virtual void on_validation_epoch_end() {}
  virtual void on_test_epoch_start() {}
  virtual void on_test_epoch_end() {}
  virtual void on_predict_epoch_start() {}
  virtual void on_predict_epoch_end() {}

  // Returning false from on_train_batch_start skips the rest of the epoch (Lightning's -1).
  virtual bool on_train_batch_start(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
    return true;
  }
  virtual void on_train_batch_end(const torch::Tensor& loss, Batch& batch, int64_t batch_idx) {
    (void)loss, (void)batch, (void)batch_idx;
  }
  virtual void on_validation_batch_start(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
  }
  virtual void on_validation_batch_end(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
  }
  virtual void on_test_batch_start(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
  }
  virtual void on_test_batch_end(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
  }
  virtual void on_predict_batch_start(Batch& batch, int64_t batch_idx) {
    (void)batch, (void)batch_idx;
  }
  virtual void on_predict_batch_end(const torch::Tensor& output, Batch& batch, int64_t batch_idx) {
    (void)output, (void)batch, (void)batch_idx;
  }

  virtual void on_validation_model_zero_grad();
  // Evaluation and prediction switch the module to eval mode and back. The loops note each
  // submodule's mode first (capture_modes); the default *_model_train hooks put every one back
  // as it was (restore_modes), so a submodule frozen in eval mode stays so, as Lightning's
  // _ModuleMode. Prediction restores the modes itself.
  virtual void on_validation_model_eval() { eval(); }
  virtual void on_validation_model_train() { restore_modes(); }
  virtual void on_test_model_eval() { eval(); }
  virtual void on_test_model_train() { restore_modes(); }
  virtual void on_predict_model_eval() { eval(); }
  void capture_modes();
  void restore_modes();

  virtual void on_before_zero_grad(Optimizer& optimizer) { (void)optimizer; }
  virtual void on_before_backward(const torch::Tensor& loss) { (void)loss; }
  // Runs backward on the (already precision-scaled) loss; override for a custom backward.
  virtual void backward(const torch::Tensor& loss) { loss.backward(); }
  virtual void on_after_backward() {}
  virtual void on_before_optimizer_step(Optimizer& optimizer) { (void)optimizer; }
  virtual void configure_gradient_clipping(Optimizer& optimizer,
                                           std::optional<double> gradient_clip_val,
                                           std::optional<GradClipAlgorithm> algorithm);
  virtual void optimizer_step(int64_t epoch, int64_t batch_idx, Optimizer& optimizer,
                              const Closure& closure);
  virtual void optimizer_zero_grad(int64_t epoch, int64_t batch_idx, Optimizer& optimizer);
  virtual void lr_scheduler_step(LRScheduler& scheduler, std::optional<double> metric);

  virtual Batch on_before_batch_transfer(Batch batch, int64_t dataloader_idx) {
    (void)dataloader_idx;
    return batch;
  }
  virtual Batch transfer_batch_to_device(Batch batch, const torch::Device& device,
                                         int64_t dataloader_idx);
  virtual Batch on_after_batch_transfer(Batch batch, int64_t dataloader_idx) {
    (void)dataloader_idx;
    return batch;
  }

  // Data hooks, used when fit/validate/test/predict get neither loaders nor a DataModule.
  virtual std::shared_ptr<DataLoader> train_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> val_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> test_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> predict_dataloader() { return nullptr; }

  virtual void on_save_checkpoint(CheckpointDict& checkpoint) { (void)checkpoint; }
  virtual void on_load_checkpoint(const CheckpointDict& checkpoint) { (void)checkpoint; }

 private:
  friend class Trainer;
  void print_line(const std::string& line);

  std::string module_name_;
  bool automatic_optimization_ = true;
  bool strict_loading_ = true;
  HParams hparams_;
  Trainer* trainer_ = nullptr;
  // capture_modes(): this module's mode, then each submodule's, parents before children.
  bool captured_training_ = true;
  std::vector<std::pair<std::shared_ptr<torch::nn::Module>, bool>> captured_modes_;
  // toggle_optimizer(): each parameter's requires_grad before, until untoggle_optimizer().
  std::unordered_map<const c10::TensorImpl*, bool> param_requires_grad_state_;
};

}  // namespace fulgur
