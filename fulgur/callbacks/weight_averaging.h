#pragma once
// WeightAveraging: Lightning's weight-averaging callback, an average of the Module's weights
// updated as training goes (SWA by default, EMA with ema_avg_fn or EMAWeightAveraging).
//
// When fit starts it copies the Module's parameters and buffers (on `device`). After each
// optimizer step for which should_update(step_idx) holds, and after each training epoch for which
// should_update(epoch_idx) holds, the copy becomes avg_fn(average, current, n_averaged) (the
// first update takes the current values). Buffers are averaged too unless use_buffers is false;
// then they follow the Module's at each update. Validation inside fit runs with the averaged
// weights (swapped in at the validation epoch's start and back at its end, so training goes on
// from its own), and the Module keeps the averages when training ends.
//
// Checkpoints in Lightning's layout: "state_dict" holds the averaged weights (what
// load_from_checkpoint and inference read), "current_model_state" the Module's own,
// "averaging_state" {"n_averaged"}, and the callback's state {"latest_update_step"}. A fit resumed
// from one restores both; from a checkpoint written without the callback, both start from its
// "state_dict" (with a warning).
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/optim/averaging_function.h"

namespace fulgur {

struct WeightAveragingOptions {
  // Where the average lives; nullopt: the Module's device.
  std::optional<torch::Device> device;
  // false: only the parameters are averaged; the buffers are copied at each update.
  bool use_buffers = true;
  // Empty: swa_avg_fn(), the equally weighted mean.
  AveragingFunction avg_fn;
};

class WeightAveraging : public Callback {
 public:
  explicit WeightAveraging(WeightAveragingOptions options = {});
  std::string name() const override { return "WeightAveraging"; }

  // Whether to update the average after the optimizer step `step_idx` (zero-based) or after the
  // training epoch `epoch_idx`; one of the two is set. By default after every step.
  virtual bool should_update(std::optional<int64_t> step_idx,
                             std::optional<int64_t> epoch_idx) const;

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void teardown(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_fit_start(Trainer& trainer, Module& module) override;
  void on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor& loss, Batch& batch,
                          int64_t batch_idx) override;
  void on_train_epoch_end(Trainer& trainer, Module& module) override;
  void on_train_end(Trainer& trainer, Module& module) override;
  void on_validation_epoch_start(Trainer& trainer, Module& module) override;
  void on_validation_epoch_end(Trainer& trainer, Module& module) override;
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;
  void on_save_checkpoint(Trainer& trainer, Module& module, CheckpointDict& checkpoint) override;
  void on_load_checkpoint(Trainer& trainer, Module& module,
                          const CheckpointDict& checkpoint) override;

  // The averaged parameters then buffers, under the Module's state-dict names (empty before fit).
  const std::vector<std::pair<std::string, torch::Tensor>>& average() const { return average_; }
  // Updates so far (the count avg_fn receives).
  int64_t n_averaged() const { return n_averaged_; }

 private:
  // Copies the Module's weights into the average, once per fit (after configure_model).
  void ensure_average(Module& module);
  // The Module's parameters then buffers, checked against the average's shapes.
  std::vector<torch::Tensor> weights_of(Module& module) const;
  void update_average(Module& module);
  void swap_weights(Module& module);

  WeightAveragingOptions options_;
  bool fitting_ = false;
  std::vector<std::pair<std::string, torch::Tensor>> average_;
  size_t parameter_count_ = 0;  // the first entries of average_ are the parameters
  int64_t n_averaged_ = 0;
  torch::Tensor count_;  // n_averaged_ on the average's device, for avg_fn without a host read
  // The global step and the epoch of the last updates: each is updated at most once.
  int64_t latest_update_step_ = 0;
  int64_t latest_update_epoch_ = -1;
};

}  // namespace fulgur
