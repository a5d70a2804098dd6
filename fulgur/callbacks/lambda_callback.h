#pragma once
// fulgur::LambdaCallback — Lightning's LambdaCallback: a callback made of functions, one per
// hook, for behaviour too small to deserve a class. Hooks left empty do nothing.
//
//   trainer options .callbacks = {std::make_shared<LambdaCallback>(LambdaCallbackOptions{
//       .on_train_epoch_end = [](Trainer& t, Module&) { ... }})}
//
// The fields follow Callback's hooks in their order (designated initializers must too).
#include <exception>
#include <functional>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct LambdaCallbackOptions {
  using Hook = std::function<void(Trainer&, Module&)>;
  using StageHook = std::function<void(Trainer&, Module&, const std::string& stage)>;
  using BatchHook = std::function<void(Trainer&, Module&, Batch&, int64_t batch_idx)>;
  using OptimizerHook = std::function<void(Trainer&, Module&, Optimizer&)>;

  StageHook setup;
  StageHook teardown;
  Hook on_fit_start;
  Hook on_fit_end;
  Hook on_sanity_check_start;
  Hook on_sanity_check_end;
  Hook on_train_start;
  Hook on_train_end;
  Hook on_validation_start;
  Hook on_validation_end;
  Hook on_test_start;
  Hook on_test_end;
  Hook on_predict_start;
  Hook on_predict_end;
  Hook on_train_epoch_start;
  Hook on_train_epoch_end;
  Hook on_validation_epoch_start;
  Hook on_validation_epoch_end;
  Hook on_test_epoch_start;
  Hook on_test_epoch_end;
  Hook on_predict_epoch_start;
  Hook on_predict_epoch_end;
  BatchHook on_train_batch_start;
  std::function<void(Trainer&, Module&, const torch::Tensor& loss, Batch&, int64_t batch_idx)>
      on_train_batch_end;
  BatchHook on_validation_batch_start;
  BatchHook on_validation_batch_end;
  BatchHook on_test_batch_start;
  BatchHook on_test_batch_end;
  BatchHook on_predict_batch_start;
  std::function<void(Trainer&, Module&, const torch::Tensor& output, Batch&, int64_t batch_idx)>
      on_predict_batch_end;
  OptimizerHook on_before_zero_grad;
  std::function<void(Trainer&, Module&, const torch::Tensor& loss)> on_before_backward;
  Hook on_after_backward;
  OptimizerHook on_before_optimizer_step;
  std::function<void(Trainer&, Module&, const std::exception& error)> on_exception;
  std::function<void(Trainer&, Module&, CheckpointDict& checkpoint)> on_save_checkpoint;
  std::function<void(Trainer&, Module&, const CheckpointDict& checkpoint)> on_load_checkpoint;
};

class LambdaCallback : public Callback {
 public:
  explicit LambdaCallback(LambdaCallbackOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "LambdaCallback"; }

  void setup(Trainer& t, Module& m, const std::string& stage) override;
  void teardown(Trainer& t, Module& m, const std::string& stage) override;
  void on_fit_start(Trainer& t, Module& m) override;
  void on_fit_end(Trainer& t, Module& m) override;
  void on_sanity_check_start(Trainer& t, Module& m) override;
  void on_sanity_check_end(Trainer& t, Module& m) override;
  void on_train_start(Trainer& t, Module& m) override;
  void on_train_end(Trainer& t, Module& m) override;
  void on_validation_start(Trainer& t, Module& m) override;
  void on_validation_end(Trainer& t, Module& m) override;
  void on_test_start(Trainer& t, Module& m) override;
  void on_test_end(Trainer& t, Module& m) override;
  void on_predict_start(Trainer& t, Module& m) override;
  void on_predict_end(Trainer& t, Module& m) override;
  void on_train_epoch_start(Trainer& t, Module& m) override;
  void on_train_epoch_end(Trainer& t, Module& m) override;
  void on_validation_epoch_start(Trainer& t, Module& m) override;
  void on_validation_epoch_end(Trainer& t, Module& m) override;
  void on_test_epoch_start(Trainer& t, Module& m) override;
  void on_test_epoch_end(Trainer& t, Module& m) override;
  void on_predict_epoch_start(Trainer& t, Module& m) override;
  void on_predict_epoch_end(Trainer& t, Module& m) override;
  void on_train_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_train_batch_end(Trainer& t, Module& m, const torch::Tensor& loss, Batch& batch,
                          int64_t batch_idx) override;
  void on_validation_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_validation_batch_end(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_test_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_test_batch_end(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_predict_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) override;
  void on_predict_batch_end(Trainer& t, Module& m, const torch::Tensor& output, Batch& batch,
                            int64_t batch_idx) override;
  void on_before_zero_grad(Trainer& t, Module& m, Optimizer& optimizer) override;
  void on_before_backward(Trainer& t, Module& m, const torch::Tensor& loss) override;
  void on_after_backward(Trainer& t, Module& m) override;
  void on_before_optimizer_step(Trainer& t, Module& m, Optimizer& optimizer) override;
  void on_exception(Trainer& t, Module& m, const std::exception& error) override;
  void on_save_checkpoint(Trainer& t, Module& m, CheckpointDict& checkpoint) override;
  void on_load_checkpoint(Trainer& t, Module& m, const CheckpointDict& checkpoint) override;

 private:
  LambdaCallbackOptions options_;
};

}  // namespace fulgur
