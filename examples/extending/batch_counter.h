#pragma once
// BatchCounter — a small Callback: it says which accelerator, strategy and precision the Trainer
// resolved when fit starts, prints each training epoch's batch count and mean train_loss when
// the epoch ends, checks in on_before_optimizer_step that the gradients it sees are finite, and
// keeps its running total in checkpoints (under "BatchCounter" in the `callbacks` dict), so a
// resumed fit keeps counting.
//
// Pass an instance in `.callbacks`; register_extensions.cpp also registers it in
// fulgur::callback_registry() so a LightningCLI program can choose it by class name
// (`--trainer.callbacks+=BatchCounter --trainer.callbacks.print_epochs=false`).
#include <cstdint>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace extending {

struct BatchCounterOptions {
  bool print_epochs = true;  // a line at each training epoch's end
};

class BatchCounter : public fulgur::Callback {
 public:
  explicit BatchCounter(BatchCounterOptions options = {}) : options_(options) {}

  std::string name() const override { return "BatchCounter"; }

  void on_fit_start(fulgur::Trainer& trainer, fulgur::Module& module) override;
  void on_train_epoch_start(fulgur::Trainer& trainer, fulgur::Module& module) override;
  void on_train_batch_end(fulgur::Trainer& trainer, fulgur::Module& module,
                          const torch::Tensor& loss, fulgur::Batch& batch,
                          int64_t batch_idx) override;
  void on_before_optimizer_step(fulgur::Trainer& trainer, fulgur::Module& module,
                                fulgur::Optimizer& optimizer) override;
  void on_train_epoch_end(fulgur::Trainer& trainer, fulgur::Module& module) override;

  // {"batches": total training batches seen, over every fit this object took part in}
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

  int64_t total_batches() const { return total_batches_; }
  int64_t optimizer_steps_seen() const { return optimizer_steps_seen_; }

 private:
  BatchCounterOptions options_;
  int64_t epoch_batches_ = 0;
  int64_t total_batches_ = 0;
  int64_t optimizer_steps_seen_ = 0;
};

}  // namespace extending
