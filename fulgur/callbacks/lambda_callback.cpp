#include "fulgur/callbacks/lambda_callback.h"

namespace fulgur {

// Each hook calls its function when one was given.
void LambdaCallback::setup(Trainer& t, Module& m, const std::string& stage) {
  if (options_.setup) options_.setup(t, m, stage);
}

void LambdaCallback::teardown(Trainer& t, Module& m, const std::string& stage) {
  if (options_.teardown) options_.teardown(t, m, stage);
}

void LambdaCallback::on_fit_start(Trainer& t, Module& m) {
  if (options_.on_fit_start) options_.on_fit_start(t, m);
}

void LambdaCallback::on_fit_end(Trainer& t, Module& m) {
  if (options_.on_fit_end) options_.on_fit_end(t, m);
}

void LambdaCallback::on_sanity_check_start(Trainer& t, Module& m) {
  if (options_.on_sanity_check_start) options_.on_sanity_check_start(t, m);
}

void LambdaCallback::on_sanity_check_end(Trainer& t, Module& m) {
  if (options_.on_sanity_check_end) options_.on_sanity_check_end(t, m);
}

void LambdaCallback::on_train_start(Trainer& t, Module& m) {
  if (options_.on_train_start) options_.on_train_start(t, m);
}

void LambdaCallback::on_train_end(Trainer& t, Module& m) {
  if (options_.on_train_end) options_.on_train_end(t, m);
}

void LambdaCallback::on_validation_start(Trainer& t, Module& m) {
  if (options_.on_validation_start) options_.on_validation_start(t, m);
}

void LambdaCallback::on_validation_end(Trainer& t, Module& m) {
  if (options_.on_validation_end) options_.on_validation_end(t, m);
}

void LambdaCallback::on_test_start(Trainer& t, Module& m) {
  if (options_.on_test_start) options_.on_test_start(t, m);
}

void LambdaCallback::on_test_end(Trainer& t, Module& m) {
  if (options_.on_test_end) options_.on_test_end(t, m);
}

void LambdaCallback::on_predict_start(Trainer& t, Module& m) {
  if (options_.on_predict_start) options_.on_predict_start(t, m);
}

void LambdaCallback::on_predict_end(Trainer& t, Module& m) {
  if (options_.on_predict_end) options_.on_predict_end(t, m);
}

void LambdaCallback::on_train_epoch_start(Trainer& t, Module& m) {
  if (options_.on_train_epoch_start) options_.on_train_epoch_start(t, m);
}

void LambdaCallback::on_train_epoch_end(Trainer& t, Module& m) {
  if (options_.on_train_epoch_end) options_.on_train_epoch_end(t, m);
}

void LambdaCallback::on_validation_epoch_start(Trainer& t, Module& m) {
  if (options_.on_validation_epoch_start) options_.on_validation_epoch_start(t, m);
}

void LambdaCallback::on_validation_epoch_end(Trainer& t, Module& m) {
  if (options_.on_validation_epoch_end) options_.on_validation_epoch_end(t, m);
}

void LambdaCallback::on_test_epoch_start(Trainer& t, Module& m) {
  if (options_.on_test_epoch_start) options_.on_test_epoch_start(t, m);
}

void LambdaCallback::on_test_epoch_end(Trainer& t, Module& m) {
  if (options_.on_test_epoch_end) options_.on_test_epoch_end(t, m);
}

void LambdaCallback::on_predict_epoch_start(Trainer& t, Module& m) {
  if (options_.on_predict_epoch_start) options_.on_predict_epoch_start(t, m);
}

void LambdaCallback::on_predict_epoch_end(Trainer& t, Module& m) {
  if (options_.on_predict_epoch_end) options_.on_predict_epoch_end(t, m);
}

void LambdaCallback::on_train_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) {
  if (options_.on_train_batch_start) options_.on_train_batch_start(t, m, batch, batch_idx);
}

void LambdaCallback::on_train_batch_end(Trainer& t, Module& m, const torch::Tensor& loss,
                                        Batch& batch, int64_t batch_idx) {
  if (options_.on_train_batch_end) options_.on_train_batch_end(t, m, loss, batch, batch_idx);
}

void LambdaCallback::on_validation_batch_start(Trainer& t, Module& m, Batch& batch,
                                               int64_t batch_idx) {
  if (options_.on_validation_batch_start)
    options_.on_validation_batch_start(t, m, batch, batch_idx);
}

void LambdaCallback::on_validation_batch_end(Trainer& t, Module& m, Batch& batch,
                                             int64_t batch_idx) {
  if (options_.on_validation_batch_end) options_.on_validation_batch_end(t, m, batch, batch_idx);
}

void LambdaCallback::on_test_batch_start(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) {
  if (options_.on_test_batch_start) options_.on_test_batch_start(t, m, batch, batch_idx);
}

void LambdaCallback::on_test_batch_end(Trainer& t, Module& m, Batch& batch, int64_t batch_idx) {
  if (options_.on_test_batch_end) options_.on_test_batch_end(t, m, batch, batch_idx);
}

void LambdaCallback::on_predict_batch_start(Trainer& t, Module& m, Batch& batch,
                                            int64_t batch_idx) {
  if (options_.on_predict_batch_start) options_.on_predict_batch_start(t, m, batch, batch_idx);
}

void LambdaCallback::on_predict_batch_end(Trainer& t, Module& m, const torch::Tensor& output,
                                          Batch& batch, int64_t batch_idx) {
  if (options_.on_predict_batch_end) options_.on_predict_batch_end(t, m, output, batch, batch_idx);
}

void LambdaCallback::on_before_zero_grad(Trainer& t, Module& m, Optimizer& optimizer) {
  if (options_.on_before_zero_grad) options_.on_before_zero_grad(t, m, optimizer);
}

void LambdaCallback::on_before_backward(Trainer& t, Module& m, const torch::Tensor& loss) {
  if (options_.on_before_backward) options_.on_before_backward(t, m, loss);
}

void LambdaCallback::on_after_backward(Trainer& t, Module& m) {
  if (options_.on_after_backward) options_.on_after_backward(t, m);
}

void LambdaCallback::on_before_optimizer_step(Trainer& t, Module& m, Optimizer& optimizer) {
  if (options_.on_before_optimizer_step) options_.on_before_optimizer_step(t, m, optimizer);
}

void LambdaCallback::on_exception(Trainer& t, Module& m, const std::exception& error) {
  if (options_.on_exception) options_.on_exception(t, m, error);
}

void LambdaCallback::on_save_checkpoint(Trainer& t, Module& m, CheckpointDict& checkpoint) {
  if (options_.on_save_checkpoint) options_.on_save_checkpoint(t, m, checkpoint);
}

void LambdaCallback::on_load_checkpoint(Trainer& t, Module& m, const CheckpointDict& checkpoint) {
  if (options_.on_load_checkpoint) options_.on_load_checkpoint(t, m, checkpoint);
}

}  // namespace fulgur
