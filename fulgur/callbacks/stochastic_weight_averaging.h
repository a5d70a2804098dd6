#pragma once
// StochasticWeightAveraging: Lightning's SWA callback. From epoch `swa_epoch_start` to the last,
// the optimizer's rates anneal to `swa_lrs` under an SWALR that takes the place of the
// configured scheduler, and at the start of each of those epochs the Module's parameters are
// averaged into a copy kept on `device`; after the last epoch the Module gets the averages.
// A Module with batch norms then trains one epoch more, in which training_step runs without
// backward or optimizer steps and the batch norms average their running statistics over the
// whole epoch (momentum None), so they fit the averaged weights; max_epochs is raised by one for
// that epoch, as Lightning's fit_loop.max_epochs, and put back in on_train_end.
//
// Its state in checkpoints has Lightning's keys (n_averaged, latest_update_epoch,
// scheduler_state, average_model_state). Unlike Lightning's, a checkpoint's `lr_schedulers` holds
// the states of the schedulers configure_optimizers returned (the one SWALR took the place of as
// it was then), so a fit resumed from it passes the checks of the configured schedulers; the
// SWALR is rebuilt from `scheduler_state`, as Lightning's resume does.
#include <torch/nn/module.h>
#include <torch/types.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/optim/averaging_function.h"

namespace fulgur {

class SWALR;
struct SchedulerConfig;

struct StochasticWeightAveragingOptions {
  // One rate for every param group, or one per group; each > 0 (Lightning's float or list).
  std::vector<double> swa_lrs;
  // An epoch number >= 1 (averaging starts at epoch index swa_epoch_start - 1) or a fraction
  // in [0, 1] of max_epochs (starting at epoch index int(max_epochs * fraction)).
  std::variant<int64_t, double> swa_epoch_start = 0.8;
  int64_t annealing_epochs = 10;
  std::string annealing_strategy = "cos";  // or "linear"
  // Empty: swa_avg_fn(), the running mean.
  AveragingFunction avg_fn;
  // Where the averaged copy lives; nullopt: the Module's device.
  std::optional<torch::Device> device = torch::Device(torch::kCPU);
};

class StochasticWeightAveraging : public Callback {
 public:
  // Raises MisconfigurationError for swa_lrs that are missing or not positive, a swa_epoch_start
  // out of range, annealing settings SWALR rejects or a negative annealing_epochs.
  explicit StochasticWeightAveraging(StochasticWeightAveragingOptions options);
  ~StochasticWeightAveraging() override;
  std::string name() const override { return "StochasticWeightAveraging"; }

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_fit_start(Trainer& trainer, Module& module) override;
  void on_train_epoch_start(Trainer& trainer, Module& module) override;
  void on_train_epoch_end(Trainer& trainer, Module& module) override;
  void on_train_end(Trainer& trainer, Module& module) override;
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;
  void on_save_checkpoint(Trainer& trainer, Module& module, CheckpointDict& checkpoint) override;

  const StochasticWeightAveragingOptions& options() const { return options_; }
  // The first and last epoch index whose start averages (the last is max_epochs - 1); known
  // from on_fit_start.
  int64_t swa_start() const;
  int64_t swa_end() const { return max_epochs_ - 1; }
  // Parameters averaged so far.
  int64_t n_averaged() const;
  // The averaged copy's parameters and buffers under the Module's state-dict names (buffers as
  // they were at setup, as Lightning's deep copy).
  const std::vector<std::pair<std::string, torch::Tensor>>& average() const { return average_; }

 private:
  void update_parameters(Module& module);
  void transfer_weights(Module& module) const;
  void reset_batch_norm_and_save_state(Module& module);
  void reset_momenta();

  StochasticWeightAveragingOptions options_;
  int64_t max_epochs_ = 0;
  bool contains_batch_norm_ = false;
  bool initialized_ = false;
  std::vector<std::pair<std::string, torch::Tensor>> average_;
  size_t parameter_count_ = 0;  // the first entries of average_ are the parameters
  torch::Tensor n_averaged_;
  int64_t init_n_averaged_ = 0;
  int64_t latest_update_epoch_ = -1;
  std::shared_ptr<SWALR> scheduler_;
  // The configured scheduler SWALR took the place of (null when it was appended).
  std::shared_ptr<SchedulerConfig> replaced_;
  std::optional<c10::impl::GenericDict> scheduler_state_;
  std::optional<c10::impl::GenericDict> average_state_;
  // Each batch norm's momentum before the batch-norm epoch set it to None.
  struct SavedMomentum {
    std::shared_ptr<torch::nn::Module> module;
    c10::optional<double> momentum;  // LibTorch's type for it
  };
  std::vector<SavedMomentum> momenta_;
};

}  // namespace fulgur
