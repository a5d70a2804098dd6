#pragma once
// fulgur::Callback — Lightning's Callback: self-contained behaviour hooked into training
// (checkpointing, early stopping, progress, monitoring). Every hook receives the Trainer and
// the Module; for the same hook the Trainer calls all callbacks before the Module.
#include <memory>
#include <string>

#include "fulgur/data/batch.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/optim/optimizer.h"

namespace fulgur {

class Trainer;
class Module;

class Callback {
 public:
  virtual ~Callback() = default;
  // Key of this callback's state in the checkpoint's `callbacks` dict.
  virtual std::string state_key() const { return name(); }
  virtual std::string name() const { return "Callback"; }
  // Checkpoint-writing callbacks (ModelCheckpoint) run after all others, as in Lightning.
  virtual bool is_checkpointing() const { return false; }
  // Callbacks that monitor metrics (EarlyStopping, ModelCheckpoint) run their
  // on_train_epoch_end after the Module's.
  virtual bool runs_after_module_on_train_epoch_end() const { return is_checkpointing(); }

  virtual void setup(Trainer&, Module&, const std::string& stage) { (void)stage; }
  virtual void teardown(Trainer&, Module&, const std::string& stage) { (void)stage; }

  virtual void on_fit_start(Trainer&, Module&) {}
  virtual void on_fit_end(Trainer&, Module&) {}
  virtual void on_sanity_check_start(Trainer&, Module&) {}
  virtual void on_sanity_check_end(Trainer&, Module&) {}
  virtual void on_train_start(Trainer&, Module&) {}
  virtual void on_train_end(Trainer&, Module&) {}
  virtual void on_validation_start(Trainer&, Module&) {}
  virtual void on_validation_end(Trainer&, Module&) {}
  virtual void on_test_start(Trainer&, Module&) {}
  virtual void on_test_end(Trainer&, Module&) {}
  virtual void on_predict_start(Trainer&, Module&) {}
  virtual void on_predict_end(Trainer&, Module&) {}

  virtual void on_train_epoch_start(Trainer&, Module&) {}
  virtual void on_train_epoch_end(Trainer&, Module&) {}
  virtual void on_validation_epoch_start(Trainer&, Module&) {}
  virtual void on_validation_epoch_end(Trainer&, Module&) {}
  virtual void on_test_epoch_start(Trainer&, Module&) {}
  virtual void on_test_epoch_end(Trainer&, Module&) {}
  virtual void on_predict_epoch_start(Trainer&, Module&) {}
  virtual void on_predict_epoch_end(Trainer&, Module&) {}

  virtual void on_train_batch_start(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_train_batch_end(Trainer&, Module&, const torch::Tensor& loss, Batch&,
                                  int64_t batch_idx) {
    (void)loss, (void)batch_idx;
  }
  virtual void on_validation_batch_start(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_validation_batch_end(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_test_batch_start(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_test_batch_end(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_predict_batch_start(Trainer&, Module&, Batch&, int64_t batch_idx) {
    (void)batch_idx;
  }
  virtual void on_predict_batch_end(Trainer&, Module&, const torch::Tensor& output, Batch&,
                                    int64_t batch_idx) {
    (void)output, (void)batch_idx;
  }

  virtual void on_before_zero_grad(Trainer&, Module&, Optimizer&) {}
  virtual void on_before_backward(Trainer&, Module&, const torch::Tensor& loss) { (void)loss; }
  virtual void on_after_backward(Trainer&, Module&) {}
  virtual void on_before_optimizer_step(Trainer&, Module&, Optimizer&) {}

  virtual void on_exception(Trainer&, Module&, const std::exception& error) { (void)error; }

  // Checkpoint state: `state_dict` is stored under `state_key()`.
  virtual c10::IValue state_dict() { return c10::IValue(); }
  virtual void load_state_dict(const c10::IValue& state) { (void)state; }
  virtual void on_save_checkpoint(Trainer&, Module&, CheckpointDict& checkpoint) {
    (void)checkpoint;
  }
  virtual void on_load_checkpoint(Trainer&, Module&, const CheckpointDict& checkpoint) {
    (void)checkpoint;
  }
};

}  // namespace fulgur
