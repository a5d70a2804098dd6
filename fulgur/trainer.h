#pragma once
// fulgur::Trainer — Lightning's Trainer: owns the engineering of training so the Module holds
// only the research. It builds one Strategy from the hardware flags (AcceleratorConnector),
// adds the default callbacks and logger, and runs fit / validate / test / predict with
// Lightning's hooks, order, progress counters and logging semantics.
//
// Guarantees: the loops talk only to the Strategy; every hook runs in Lightning's order
// (callbacks before the Module); errors are fulgur exceptions, after which the callbacks'
// on_exception ran and the loggers were finalized with status "failed".
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "fulgur/trainer_options.h"

namespace fulgur {

class Accelerator;
class Callback;
class CheckpointConnector;
class CheckpointIO;
class DataConnector;
class DataLoader;
class DataModule;
class EvaluationLoop;
class FitLoop;
class Logger;
class LoggerConnector;
class LRScheduler;
class ModelCheckpoint;
class SignalConnector;
class Module;
class Optimizer;
class Precision;
class Profiler;
class PredictionLoop;
class Strategy;
struct SchedulerConfig;

using Metrics = std::map<std::string, double>;

enum class TrainerFn { Fitting, Validating, Testing, Predicting };
enum class RunningStage { Training, Sanity, Validating, Testing, Predicting };
enum class TrainerStatus { Initializing, Running, Finished, Interrupted };

class Trainer {
 public:
  // Checkpoints written on SIGTERM/SIGUSR1 are <default_root_dir>/hpc_ckpt_<N>.ckpt (Lightning's).
  static constexpr const char* kHpcCheckpointPrefix = "hpc_ckpt_";

  explicit Trainer(TrainerOptions options = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // ---- entry points (Lightning's signatures; loaders override the DataModule's) ----
  // ckpt_path: resume from this checkpoint (fulgur's, or one Python Lightning wrote): a path,
  // "last" (the newest last*.ckpt of every ModelCheckpoint, an OnExceptionCheckpoint's file or
  // hpc_ckpt_*.ckpt in default_root_dir; none: a warning and a fresh start), "hpc" (the
  // hpc_ckpt_N.ckpt with the largest N) or "best" (of a fit in this process). Unset: "hpc" under
  // SLURM when there is one, "last" with an OnExceptionCheckpoint.
  void fit(Module& module, DataModule& datamodule, std::optional<std::string> ckpt_path = {});
  void fit(Module& module, std::shared_ptr<DataLoader> train_dataloader = nullptr,
           std::shared_ptr<DataLoader> val_dataloader = nullptr,
           std::optional<std::string> ckpt_path = {});
  // ckpt_path: weights to evaluate: a path, "best" (of a fit in this process), "last" or "hpc"
  // (found as for fit; "last" without a file warns and evaluates the current weights).
  Metrics validate(Module& module, DataModule& datamodule,
                   std::optional<std::string> ckpt_path = {}, bool verbose = true);
  Metrics validate(Module& module, std::shared_ptr<DataLoader> dataloader = nullptr,
                   std::optional<std::string> ckpt_path = {}, bool verbose = true);
  Metrics test(Module& module, DataModule& datamodule, std::optional<std::string> ckpt_path = {},
               bool verbose = true);
  Metrics test(Module& module, std::shared_ptr<DataLoader> dataloader = nullptr,
               std::optional<std::string> ckpt_path = {}, bool verbose = true);
  // return_predictions=false: nothing is kept nor returned (a large predict set written by a
  // BasePredictionWriter at each batch stays out of memory); an epoch-interval writer still
  // gets every prediction, as in Lightning.
  std::vector<torch::Tensor> predict(Module& module, DataModule& datamodule,
                                     std::optional<std::string> ckpt_path = {},
                                     bool return_predictions = true);
  std::vector<torch::Tensor> predict(Module& module,
                                     std::shared_ptr<DataLoader> dataloader = nullptr,
                                     std::optional<std::string> ckpt_path = {},
                                     bool return_predictions = true);
  // Without a Module (Lightning's `trainer.test(datamodule=dm)`): the Module of the previous
  // run, with the best checkpoint of the previous fit unless ckpt_path (or set_ckpt_path) names
  // another, after Lightning's warning. Without a DataModule or loader the Module's own
  // *_dataloader() provides the data.
  Metrics validate(DataModule& datamodule, std::optional<std::string> ckpt_path = {},
                   bool verbose = true);
  Metrics validate(std::shared_ptr<DataLoader> dataloader = nullptr,
                   std::optional<std::string> ckpt_path = {}, bool verbose = true);
  Metrics test(DataModule& datamodule, std::optional<std::string> ckpt_path = {},
               bool verbose = true);
  Metrics test(std::shared_ptr<DataLoader> dataloader = nullptr,
               std::optional<std::string> ckpt_path = {}, bool verbose = true);
  std::vector<torch::Tensor> predict(DataModule& datamodule,
                                     std::optional<std::string> ckpt_path = {},
                                     bool return_predictions = true);
  std::vector<torch::Tensor> predict(std::shared_ptr<DataLoader> dataloader = nullptr,
                                     std::optional<std::string> ckpt_path = {},
                                     bool return_predictions = true);

  // Writes a checkpoint of the current state (rank 0), through the Strategy.
  void save_checkpoint(const std::string& path, bool weights_only = false);

  // ---- the parts (read-only forwarders to the Strategy's) ----
  Strategy& strategy() const { return *strategy_; }
  Accelerator& accelerator() const;
  Precision& precision_plugin() const;
  CheckpointIO& checkpoint_io() const;
  const std::vector<std::shared_ptr<Callback>>& callbacks() const { return callbacks_; }
  const std::vector<std::shared_ptr<Logger>>& loggers() const { return loggers_; }
  Logger* logger() const { return loggers_.empty() ? nullptr : loggers_.front().get(); }
  // The first ModelCheckpoint among the callbacks, or null.
  ModelCheckpoint* checkpoint_callback() const;
  // The profiler from the `profiler` option, or null (then nothing is timed). Time your own
  // code under it with `ProfiledAction timed(trainer.profiler(), "my_action");`.
  Profiler* profiler() const { return profiler_.get(); }
  const TrainerOptions& options() const { return options_; }

  // ---- state ----
  int64_t current_epoch() const;
  int64_t global_step() const;
  TrainerFn fn() const { return fn_; }
  RunningStage stage() const { return stage_; }
  TrainerStatus status() const { return status_; }
  bool training() const { return stage_ == RunningStage::Training; }
  bool sanity_checking() const { return stage_ == RunningStage::Sanity; }
  bool should_stop() const { return should_stop_; }
  // The checkpoint file this run (fit, validate, test or predict) restored from, if any
  // (Lightning's trainer.ckpt_path).
  const std::optional<std::string>& ckpt_path() const { return ckpt_path_; }
  // Lightning's `trainer.ckpt_path = path`: the runs that follow restore from `path` (a file,
  // "best", "last" or "hpc") when they are given no ckpt_path; one given its own ckpt_path loads
  // that one, with a warning, and ends this choice. nullopt ends it too.
  void set_ckpt_path(std::optional<std::string> path);
  void set_should_stop(bool stop) { should_stop_ = stop; }
  // For the Tuner's short trial fits: the Module's configure_callbacks() is not asked (those
  // callbacks belong to the real fit, as in Lightning's search; a tuning callback among them
  // would start the search again inside its own trial).
  void skip_module_callbacks() { module_callbacks_ = false; }
  bool is_global_zero() const;
  int world_size() const;
  int global_rank() const;
  std::optional<int64_t> max_epochs() const { return max_epochs_; }
  // Lightning's writable fit_loop.max_epochs: StochasticWeightAveraging adds the epoch that
  // recomputes the batch-norm statistics, and takes it back in on_train_end.
  void set_max_epochs(int64_t epochs) { max_epochs_ = epochs; }
  int64_t max_steps() const { return options_.max_steps; }
  int64_t accumulate_grad_batches() const { return accumulate_grad_batches_; }
  // GradientAccumulationScheduler changes it at epoch starts (Lightning's writable property).
  void set_accumulate_grad_batches(int64_t batches);
  // Batches per epoch after limits; set when the corresponding loop starts.
  int64_t num_training_batches() const { return num_training_batches_; }
  int64_t num_val_batches() const { return num_val_batches_; }
  int64_t num_test_batches() const { return num_test_batches_; }
  int64_t num_predict_batches() const { return num_predict_batches_; }
  // Lightning's estimated_stepping_batches: the optimizer steps the fit will take,
  // ceil(num_training_batches / accumulate_grad_batches) * max_epochs, at most max_steps;
  // for OneCycleLR's total_steps in configure_optimizers, which may ask before the training
  // loader is set up (it is set up then, once). Infinite training (max_epochs = -1 and no
  // max_steps): the largest int64_t. Only during fit.
  int64_t estimated_stepping_batches();
  // Lightning's `fit_loop._combined_loader = None`: the fit asks for its training loader again
  // before training (a tuning callback changed the batch size after it was made).
  void reset_train_dataloader() { train_data_connected_ = false; }
  // <default_root_dir> when given, else the current directory.
  std::string default_root_dir() const;
  // The first logger's log_dir, else default_root_dir; under DDP rank 0's, on every rank.
  std::string log_dir() const;

  // ---- logged values (host copies, made at log time, never per step) ----
  const Metrics& callback_metrics() const;
  const Metrics& logged_metrics() const;
  const Metrics& progress_bar_metrics() const;

  Module* module() const { return module_; }
  DataModule* datamodule() const { return datamodule_; }
  // The loaders passed to fit() (null when the DataModule or the Module's hooks provide them);
  // set before on_fit_start, so the tuner's callbacks can train on the same data.
  const std::shared_ptr<DataLoader>& given_train_dataloader() const { return given_train_loader_; }
  const std::shared_ptr<DataLoader>& given_val_dataloader() const { return given_val_loader_; }

  // ---- for the loops and the Module (Lightning's trainer internals) ----
  LoggerConnector& logger_connector() { return *logger_connector_; }
  const SignalConnector& signal_connector() const { return *signal_connector_; }
  // After a batch, when `signal` arrived: saves <default_root_dir>/hpc_ckpt_<N>.ckpt and raises
  // Interrupted.
  [[noreturn]] void stop_on_signal(int signal);
  FitLoop& fit_loop() { return *fit_loop_; }
  EvaluationLoop& validate_loop() { return *validate_loop_; }
  EvaluationLoop& test_loop() { return *test_loop_; }
  PredictionLoop& predict_loop() { return *predict_loop_; }
  const std::vector<std::shared_ptr<Optimizer>>& optimizers() const { return optimizers_; }
  std::vector<SchedulerConfig>& lr_scheduler_configs() { return *lr_scheduler_configs_; }
  // Backward through the Strategy between the on_before_backward / on_after_backward hooks.
  void run_backward(const torch::Tensor& loss);
  // A validation run inside fit (stage switches to Validating and back).
  void run_validation(int64_t max_batches);
  bool can_stop_early() const;
  int64_t batches_that_stepped() const;
  // At an epoch start: fresh loaders from the hooks when reload_dataloaders_every_n_epochs says so.
  void reload_dataloaders_if_due();

 private:
  // ~Module clears module_ so a Trainer that outlives its Module never reads a dead object.
  friend class Module;
  void setup_loggers();
  void setup_callbacks();
  // Everything fit/validate/test/predict share: attach, hooks around `body`, teardown,
  // on_exception and logger finalization on failure.
  template <typename Body>
  void run_stage(TrainerFn fn, Module& module, DataModule* datamodule, Body&& body);
  void configure_optimizers();
  void fit_impl(std::shared_ptr<DataLoader> train, std::shared_ptr<DataLoader> val,
                const std::optional<std::string>& ckpt_path);
  // Asks for (or takes the given) loaders and derives the batch counts from the limits.
  void connect_train_data();
  void connect_val_data();
  // An int val_check_interval may not exceed an epoch (unless counted across epochs).
  void check_val_check_interval() const;
  // module_given: false for the overloads without a Module (ckpt_path then defaults to "best").
  Metrics evaluate_impl(bool testing, std::shared_ptr<DataLoader> loader,
                        const std::optional<std::string>& ckpt_path, bool verbose,
                        bool module_given);
  std::vector<torch::Tensor> predict_impl(std::shared_ptr<DataLoader> loader,
                                          const std::optional<std::string>& ckpt_path,
                                          bool return_predictions, bool module_given);
  // The Module of the previous run, for the overloads without one.
  Module& previous_module(TrainerFn fn) const;
  // Lightning's choice of the checkpoint to restore: the one passed; else set_ckpt_path's;
  // else "hpc" in a SLURM job that saved one; else fit's implicit one, or "best" for a stage
  // run without a Module. Resolved to a file.
  std::optional<std::string> select_ckpt_path(const std::optional<std::string>& ckpt_path,
                                              bool module_given);
  // What fit resumes from without a ckpt_path (and no hpc checkpoint of a SLURM job), as
  // Lightning: "last", with a warning, when an OnExceptionCheckpoint is configured.
  std::optional<std::string> implicit_fit_ckpt_path() const;
  // The file ckpt_path names; nullopt for "last" when there is none (after a warning).
  std::optional<std::string> resolve_ckpt_path(const std::string& ckpt_path) const;
  void print_results(const Metrics& metrics, bool testing) const;

  TrainerOptions options_;
  std::shared_ptr<Strategy> strategy_;
  std::vector<std::shared_ptr<Callback>> callbacks_;
  std::vector<std::shared_ptr<Logger>> loggers_;
  std::shared_ptr<Profiler> profiler_;
  std::unique_ptr<LoggerConnector> logger_connector_;
  std::unique_ptr<DataConnector> data_connector_;
  std::unique_ptr<CheckpointConnector> checkpoint_connector_;
  std::unique_ptr<SignalConnector> signal_connector_;
  std::unique_ptr<EvaluationLoop> validate_loop_;
  std::unique_ptr<EvaluationLoop> test_loop_;
  std::unique_ptr<FitLoop> fit_loop_;
  std::unique_ptr<PredictionLoop> predict_loop_;
  std::shared_ptr<DataLoader> given_train_loader_;
  std::shared_ptr<DataLoader> given_val_loader_;
  std::vector<std::shared_ptr<Optimizer>> optimizers_;
  std::unique_ptr<std::vector<SchedulerConfig>> lr_scheduler_configs_;
  Module* module_ = nullptr;
  DataModule* datamodule_ = nullptr;
  std::optional<int64_t> max_epochs_;
  TrainerFn fn_ = TrainerFn::Fitting;
  RunningStage stage_ = RunningStage::Training;
  TrainerStatus status_ = TrainerStatus::Initializing;
  bool should_stop_ = false;
  bool module_callbacks_ = true;
  std::optional<std::string> ckpt_path_;
  std::optional<std::string> user_ckpt_path_;  // set_ckpt_path's
  int64_t accumulate_grad_batches_ = 1;
  int64_t num_training_batches_ = 0;
  bool train_data_connected_ = false;  // in this fit
  int64_t num_val_batches_ = 0;
  int64_t num_test_batches_ = 0;
  int64_t num_predict_batches_ = 0;
  // Rank 0's log_dir, agreed at the start of each stage under DDP (each rank's logger could
  // otherwise pick its own next free version).
  std::optional<std::string> shared_log_dir_;
};

}  // namespace fulgur
