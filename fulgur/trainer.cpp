#include "fulgur/trainer.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>

#include <ATen/Context.h>
#include <torch/csrc/autograd/anomaly_mode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/callbacks/base_prediction_writer.h"
#include "fulgur/callbacks/batch_size_finder.h"
#include "fulgur/callbacks/learning_rate_finder.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/callbacks/model_summary.h"
#include "fulgur/callbacks/on_exception_checkpoint.h"
#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/callbacks/timer.h"
#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/connectors/data_connector.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/connectors/signal_connector.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/data_module.h"
#include "fulgur/environments/slurm_environment.h"
#include "fulgur/errors.h"
#include "fulgur/io/directory_listing.h"
#include "fulgur/launchers/error_file.h"
#include "fulgur/loggers/csv_logger.h"
#include "fulgur/loops/evaluation_loop.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/loops/prediction_loop.h"
#include "fulgur/optim/grad_clip.h"
#include "fulgur/profilers/simple_profiler.h"
#include "fulgur/rng_states.h"
#include "fulgur/seed.h"
#include "fulgur/warnings.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {
namespace fs = std::filesystem;
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

void validate_options(const TrainerOptions& o) {
  require(!o.max_epochs || *o.max_epochs >= -1,
          fmt::format("max_epochs={} is not valid: use -1 (no limit) or a count >= 0",
                      o.max_epochs.value_or(0)));
  require(o.max_steps >= -1,
          fmt::format("max_steps={} is not valid: use -1 (no limit) or a count >= 0", o.max_steps));
  require(!o.min_epochs || *o.min_epochs >= 0, "min_epochs must be >= 0");
  require(!o.min_steps || *o.min_steps >= 0, "min_steps must be >= 0");
  require(o.accumulate_grad_batches >= 1,
          fmt::format("accumulate_grad_batches={} is not valid: it must be a positive integer",
                      o.accumulate_grad_batches));
  require(o.log_every_n_steps >= 0,
          fmt::format("log_every_n_steps={} must be >= 0", o.log_every_n_steps));
  require(o.num_sanity_val_steps >= -1,
          fmt::format("num_sanity_val_steps={} is not valid: use -1 (all) or a count >= 0",
                      o.num_sanity_val_steps));
  require(!o.check_val_every_n_epoch || *o.check_val_every_n_epoch >= 1,
          fmt::format("check_val_every_n_epoch={} is not valid: it must be >= 1 (or unset)",
                      o.check_val_every_n_epoch.value_or(0)));
  require(o.fast_dev_run.batches >= 0,
          fmt::format("fast_dev_run={} is not valid: use true, false or a count >= 0",
                      o.fast_dev_run.batches));
  require(!o.gradient_clip_val || *o.gradient_clip_val >= 0,
          fmt::format("gradient_clip_val={} must be >= 0", o.gradient_clip_val.value_or(0)));
  if (o.gradient_clip_algorithm) parse_grad_clip_algorithm(*o.gradient_clip_algorithm);
  if (o.max_time) Timer::parse(*o.max_time);
  const auto& v = o.val_check_interval;
  if (v.is_fraction()) {
    const double f = std::get<double>(v.value);
    require(f > 0.0 && f <= 1.0,
            fmt::format("val_check_interval={} is not valid: a fraction must be in (0.0, 1.0], "
                        "a count an int >= 1",
                        v.to_string()));
  } else {
    require(std::get<int64_t>(v.value) >= 1,
            fmt::format("val_check_interval={} is not valid: a count must be >= 1", v.to_string()));
  }
  // 1.0, the default, stands for Lightning's None (validate at each epoch's end).
  require(o.check_val_every_n_epoch || !v.is_fraction() || std::get<double>(v.value) == 1.0,
          fmt::format("`val_check_interval` should be an integer when "
                      "`check_val_every_n_epoch=None`, found {}",
                      v.to_string()));
}

// Lightning logs the Module's and the DataModule's hyperparameters together; a key both hold
// with different values is an error.
HParams merge_hparams(const HParams& module, const DataModule* datamodule) {
  if (datamodule == nullptr) return module;
  HParams merged = module;
  std::vector<std::string> conflicts;
  for (const auto& [key, value] : datamodule->hparams()) {
    auto [it, inserted] = merged.emplace(key, value);
    if (!inserted && it->second != value) conflicts.push_back(key);
  }
  if (!conflicts.empty()) {
    throw MisconfigurationError(fmt::format(
        "Error while merging hparams: the keys {} are present in both the Module's and the "
        "DataModule's hparams but have different values",
        fmt::join(conflicts, ", ")));
  }
  return merged;
}

bool is_zero(const BatchCount& c) {
  return c.is_fraction() ? std::get<double>(c.value) == 0.0 : std::get<int64_t>(c.value) == 0;
}

// Lightning's _init_profiler: a name (any case) from the known ones, or an instance.
std::shared_ptr<Profiler> make_profiler(const ProfilerFlag& flag) {
  if (flag.instance) return flag.instance;
  if (flag.name.empty()) return nullptr;
  std::string name = flag.name;
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  if (name == "simple") return std::make_shared<SimpleProfiler>();
  throw MisconfigurationError(
      "When passing string value for the `profiler` parameter of `Trainer`, it can only be one "
      "of ['simple']");
}

}  // namespace

Trainer::Trainer(TrainerOptions options) : options_(std::move(options)) {
  validate_options(options_);
  if (options_.seed) seed_everything(*options_.seed);
  if (options_.deterministic) at::globalContext().setDeterministicAlgorithms(*options_.deterministic, false);
  if (options_.benchmark) at::globalContext().setBenchmarkCuDNN(*options_.benchmark);

  if (options_.fast_dev_run.batches > 0) {
    // Lightning: N batches of each stage, one epoch, no sanity check, no logs, no checkpoints.
    options_.max_steps = options_.fast_dev_run.batches;
    options_.max_epochs = 1;
    options_.num_sanity_val_steps = 0;
    options_.val_check_interval = 1.0;
    options_.check_val_every_n_epoch = 1;
    options_.logger = false;
  }
  max_epochs_ = options_.max_epochs;
  accumulate_grad_batches_ = options_.accumulate_grad_batches;

  strategy_ = AcceleratorConnector({.accelerator = options_.accelerator,
                                    .strategy = options_.strategy,
                                    .devices = options_.devices,
                                    .num_nodes = options_.num_nodes,
                                    .precision = options_.precision,
                                    .plugins = options_.plugins,
                                    .sync_batchnorm = options_.sync_batchnorm})
                  .strategy();
  setup_loggers();
  profiler_ = make_profiler(options_.profiler);

  callbacks_ = options_.callbacks;
  auto has = [&](auto* probe) {
    using T = std::remove_pointer_t<decltype(probe)>;
    return std::any_of(callbacks_.begin(), callbacks_.end(),
                       [](const auto& cb) { return dynamic_cast<T*>(cb.get()) != nullptr; });
  };
  if (!options_.enable_checkpointing && has(static_cast<ModelCheckpoint*>(nullptr))) {
    throw ConfigError(
        "Trainer was configured with enable_checkpointing=false but found a ModelCheckpoint in "
        "the callbacks list; remove it or set enable_checkpointing=true");
  }
  const auto progress_bars =
      std::count_if(callbacks_.begin(), callbacks_.end(),
                    [](const auto& cb) { return dynamic_cast<ProgressBar*>(cb.get()) != nullptr; });
  if (progress_bars > 1) {
    throw ConfigError(
        "You added multiple progress bar callbacks to the Trainer, but only one progress bar "
        "is supported");
  }
  if (progress_bars == 1 && !options_.enable_progress_bar) {
    throw ConfigError(
        "Trainer was configured with enable_progress_bar=false but found a ProgressBar in the "
        "callbacks list; remove it or set enable_progress_bar=true");
  }
  if (options_.enable_progress_bar && progress_bars == 0) {
    callbacks_.push_back(std::make_shared<ProgressBar>());
  }
  if (options_.enable_model_summary && !has(static_cast<ModelSummary*>(nullptr))) {
    callbacks_.push_back(std::make_shared<ModelSummary>());
  }
  if (options_.max_time && !has(static_cast<Timer*>(nullptr))) {
    callbacks_.push_back(std::make_shared<Timer>(Timer::parse(*options_.max_time)));
  }
  if (options_.enable_checkpointing && !has(static_cast<ModelCheckpoint*>(nullptr))) {
    callbacks_.push_back(std::make_shared<ModelCheckpoint>());
  }
  // Lightning's _parse_loop_limits: 1000 epochs unless a step limit or a Timer (max_time) ends
  // the fit.
  if (!max_epochs_) {
    const bool limited = options_.max_steps != -1 || has(static_cast<Timer*>(nullptr));
    max_epochs_ = limited ? -1 : 1000;
  }

  logger_connector_ = std::make_unique<LoggerConnector>(*this);
  data_connector_ = std::make_unique<DataConnector>(*this);
  checkpoint_connector_ = std::make_unique<CheckpointConnector>(*this);
  signal_connector_ = std::make_unique<SignalConnector>();
  validate_loop_ = std::make_unique<EvaluationLoop>(*this, /*testing=*/false);
  test_loop_ = std::make_unique<EvaluationLoop>(*this, /*testing=*/true);
  fit_loop_ = std::make_unique<FitLoop>(*this, *validate_loop_);
  predict_loop_ = std::make_unique<PredictionLoop>(*this);
  lr_scheduler_configs_ = std::make_unique<std::vector<SchedulerConfig>>();
}

Trainer::~Trainer() {
  if (module_ != nullptr && module_->trainer_ == this) module_->trainer_ = nullptr;
}

void Trainer::setup_loggers() {
  if (!options_.logger.enabled) return;
  loggers_ = options_.logger.loggers;
  if (loggers_.empty()) {
    loggers_.push_back(std::make_shared<CSVLogger>(CSVLoggerOptions{.save_dir = default_root_dir()}));
  }
}

void Trainer::setup_callbacks() {
  // Callbacks from configure_callbacks replace trainer callbacks of the same kind.
  std::vector<std::shared_ptr<Callback>> extra;
  if (module_callbacks_) {
    extra = hooks::module(*this, "configure_callbacks",
                          [](Module& m) { return m.configure_callbacks(); });
  }
  for (const auto& cb : extra) {
    std::erase_if(callbacks_, [&](const auto& existing) { return existing->name() == cb->name(); });
    callbacks_.push_back(cb);
  }
  // As Lightning: the tuning callbacks run first, so every other callback's on_fit_start sees
  // what they found; checkpointing runs last, so it sees everything the others changed.
  std::stable_partition(callbacks_.begin(), callbacks_.end(), [](const auto& cb) {
    return dynamic_cast<const BatchSizeFinder*>(cb.get()) != nullptr ||
           dynamic_cast<const LearningRateFinder*>(cb.get()) != nullptr;
  });
  std::stable_partition(callbacks_.begin(), callbacks_.end(),
                        [](const auto& cb) { return !cb->is_checkpointing(); });
}

// ---------------------------------------------------------------- forwarders and state

Accelerator& Trainer::accelerator() const { return *strategy_->accelerator(); }
Precision& Trainer::precision_plugin() const { return *strategy_->precision(); }
CheckpointIO& Trainer::checkpoint_io() const { return *strategy_->checkpoint_io(); }

ModelCheckpoint* Trainer::checkpoint_callback() const {
  for (const auto& cb : callbacks_) {
    if (auto* mc = dynamic_cast<ModelCheckpoint*>(cb.get())) return mc;
  }
  return nullptr;
}

int64_t Trainer::current_epoch() const { return fit_loop_->current_epoch(); }
int64_t Trainer::global_step() const {
  return fit_loop_->epoch_loop.optim_progress.step.total.completed;
}
int64_t Trainer::batches_that_stepped() const { return fit_loop_->epoch_loop.batches_that_stepped; }
void Trainer::set_accumulate_grad_batches(int64_t batches) {
  if (batches < 1) {
    throw ConfigError(fmt::format(
        "accumulate_grad_batches={} is not valid: it must be a positive integer", batches));
  }
  accumulate_grad_batches_ = batches;
}
bool Trainer::can_stop_early() const { return fit_loop_->can_stop_early(); }
bool Trainer::is_global_zero() const { return strategy_->is_global_zero(); }
int Trainer::world_size() const { return strategy_->world_size(); }
int Trainer::global_rank() const { return strategy_->global_rank(); }

std::string Trainer::default_root_dir() const {
  return options_.default_root_dir.empty() ? fs::current_path().string()
                                           : options_.default_root_dir;
}

std::string Trainer::log_dir() const {
  if (shared_log_dir_) return *shared_log_dir_;
  return loggers_.empty() ? default_root_dir() : loggers_.front()->log_dir();
}

const Metrics& Trainer::callback_metrics() const { return logger_connector_->callback_metrics(); }
const Metrics& Trainer::logged_metrics() const { return logger_connector_->logged_metrics(); }
const Metrics& Trainer::progress_bar_metrics() const {
  return logger_connector_->progress_bar_metrics();
}

// ---------------------------------------------------------------- steps the loops share

void Trainer::run_backward(const torch::Tensor& loss) {
  hooks::callbacks(*this, "on_before_backward",
                   [&](Callback& cb) { cb.on_before_backward(*this, *module_, loss); });
  hooks::module(*this, "on_before_backward", [&](Module& m) { m.on_before_backward(loss); });
  {
    ProfiledAction timed(profiler(), [&] { return hooks::strategy_action(*this, "backward"); });
    strategy_->backward(loss, module_);
  }
  FULGUR_CALL_HOOK(*this, on_after_backward);
}

void Trainer::run_validation(int64_t max_batches) {
  stage_ = RunningStage::Validating;
  validate_loop_->run(max_batches, /*log=*/true);
  stage_ = RunningStage::Training;
}

void Trainer::configure_optimizers() {
  Module& module = *module_;
  auto config = hooks::module(*this, "configure_optimizers",
                              [](Module& m) { return m.configure_optimizers(); });
  if (config.optimizers.empty() || !config.optimizers.front()) {
    throw MisconfigurationError(
        "configure_optimizers() returned no optimizer; return one, e.g. "
        "std::make_shared<torch::optim::Adam>(parameters(), 1e-3)");
  }
  if (module.automatic_optimization() && config.optimizers.size() > 1) {
    throw MisconfigurationError(
        "Training with multiple optimizers is only supported with manual optimization. Call "
        "set_automatic_optimization(false), then use optimizers() in training_step");
  }
  if (!module.automatic_optimization() && accumulate_grad_batches_ != 1) {
    throw MisconfigurationError(fmt::format(
        "Automatic gradient accumulation is not supported for manual optimization. Remove "
        "accumulate_grad_batches={} from the Trainer or switch to automatic optimization",
        accumulate_grad_batches_));
  }
  if (!module.automatic_optimization() && options_.gradient_clip_val) {
    throw MisconfigurationError(
        "Automatic gradient clipping is not supported for manual optimization. Remove "
        "gradient_clip_val from the Trainer or call clip_gradients() in training_step");
  }
  *lr_scheduler_configs_ = checked_scheduler_configs(config, module.automatic_optimization());

  const auto clip_algorithm = options_.gradient_clip_algorithm
                                  ? std::optional(parse_grad_clip_algorithm(*options_.gradient_clip_algorithm))
                                  : std::nullopt;
  optimizers_.clear();
  for (auto& opt : config.optimizers) {
    auto wrapper = std::make_shared<Optimizer>(opt);
    Optimizer* w = wrapper.get();
    wrapper->set_step_fn([this, w, clip_algorithm](torch::optim::Optimizer& o,
                                                   const Closure& closure) {
      auto after_closure = [this, w, clip_algorithm] {
        hooks::callbacks(*this, "on_before_optimizer_step",
                         [&](Callback& cb) { cb.on_before_optimizer_step(*this, *module_, *w); });
        hooks::module(*this, "on_before_optimizer_step",
                      [&](Module& m) { m.on_before_optimizer_step(*w); });
        hooks::module(*this, "configure_gradient_clipping", [&](Module& m) {
          m.configure_gradient_clipping(*w, options_.gradient_clip_val, clip_algorithm);
        });
      };
      auto& progress = fit_loop_->epoch_loop.optim_progress.step;
      progress.increment_ready();
      auto loss = strategy_->optimizer_step(o, closure, after_closure);
      progress.increment_completed();
      return loss;
    });
    optimizers_.push_back(std::move(wrapper));
  }
}

// ---------------------------------------------------------------- running a stage

namespace {

std::string fn_name(TrainerFn fn) {
  static const char* names[] = {"fit", "validate", "test", "predict"};
  return names[static_cast<int>(fn)];
}

}  // namespace

template <typename Body>
void Trainer::run_stage(TrainerFn fn, Module& module, DataModule* datamodule, Body&& body) {
  const std::string name = fn_name(fn);
  fn_ = fn;
  status_ = TrainerStatus::Running;
  should_stop_ = false;
  module_ = &module;
  // A stage run inside another trainer's running stage (the tuner's trials) hands the module
  // back to that trainer when it ends.
  struct Reattach {
    Module& module;
    Trainer* outer;
    ~Reattach() {
      if (outer != nullptr) module.trainer_ = outer;
    }
  } reattach{module, module.trainer_ != nullptr && module.trainer_ != this &&
                             module.trainer_->status() == TrainerStatus::Running
                         ? module.trainer_
                         : nullptr};
  module.trainer_ = this;
  datamodule_ = datamodule;
  auto run = [&] {
    logger_connector_->reset();
    setup_callbacks();
    strategy_->setup_environment();
    shared_log_dir_.reset();
    if (strategy_->world_size() > 1) shared_log_dir_ = strategy_->broadcast(log_dir(), 0);
    if (profiler_) {
      const bool several = strategy_->world_size() > 1;
      profiler_->setup(name, several ? std::optional<int>(strategy_->local_rank()) : std::nullopt,
                       log_dir());
    }
    // Lightning's order: the download on one process per node, then everybody sets up.
    if (strategy_->local_rank() == 0) {
      if (datamodule_) {
        hooks::datamodule(*this, "prepare_data", [](DataModule& dm) { dm.prepare_data(); });
      }
      hooks::module(*this, "prepare_data", [](Module& m) { m.prepare_data(); });
    }
    strategy_->barrier("prepare_data");
    if (datamodule_) hooks::datamodule(*this, "setup", [&](DataModule& dm) { dm.setup(name); });
    FULGUR_CALL_HOOK(*this, setup, name);
    hooks::module(*this, "configure_model", [](Module& m) { m.configure_model(); });
    strategy_->setup_module(module);

    body();

    if (datamodule_) {
      hooks::datamodule(*this, "teardown", [&](DataModule& dm) { dm.teardown(name); });
    }
    FULGUR_CALL_HOOK(*this, teardown, name);
    for (const auto& logger : loggers_) logger->finalize("success");
    if (profiler_) profiler_->describe();
    strategy_->teardown();
  };
  try {
    if (Launcher* launcher = strategy_->launcher()) {
      launcher->launch(run);
    } else {
      run();
    }
  } catch (const std::exception& error) {
    status_ = TrainerStatus::Interrupted;
    // A rank started by fulgur's launcher tells it what went wrong.
    error_file::record(error.what());
    // Cleanup must not hide the original error.
    try {
      hooks::callbacks(*this, "on_exception",
                       [&](Callback& cb) { cb.on_exception(*this, module, error); });
      for (const auto& logger : loggers_) logger->finalize("failed");
      strategy_->teardown();
    } catch (...) {
    }
    stage_ = RunningStage::Training;
    throw;
  }
  stage_ = RunningStage::Training;
  status_ = TrainerStatus::Finished;
}

void Trainer::fit(Module& module, DataModule& datamodule, std::optional<std::string> ckpt_path) {
  run_stage(TrainerFn::Fitting, module, &datamodule,
            [&] { fit_impl(nullptr, nullptr, ckpt_path); });
}

void Trainer::fit(Module& module, std::shared_ptr<DataLoader> train_dataloader,
                  std::shared_ptr<DataLoader> val_dataloader,
                  std::optional<std::string> ckpt_path) {
  run_stage(TrainerFn::Fitting, module, nullptr,
            [&] { fit_impl(train_dataloader, val_dataloader, ckpt_path); });
}

void Trainer::connect_train_data() {
  auto train = data_connector_->request("train", given_train_loader_);
  if (!train) {
    throw MisconfigurationError(
        "No training data: pass a train DataLoader to fit(), use a DataModule whose "
        "train_dataloader() returns one, or override Module::train_dataloader()");
  }
  if (!is_zero(options_.overfit_batches)) train->mutable_options().shuffle = false;
  num_training_batches_ = DataConnector::limit_batches(
      train->size(), data_connector_->effective_limit("train"), "limit_train_batches");
  fit_loop_->set_train_dataloader(train);
  train_data_connected_ = true;

  auto& epoch_loop = fit_loop_->epoch_loop;
  const auto& interval = options_.val_check_interval;
  if (interval.is_fraction()) {
    epoch_loop.val_check_batch = std::max<int64_t>(
        1, static_cast<int64_t>(num_training_batches_ * std::get<double>(interval.value)));
  } else {
    epoch_loop.val_check_batch = std::get<int64_t>(interval.value);
  }
}

void Trainer::connect_val_data() {
  std::shared_ptr<DataLoader> val;
  const auto limit = data_connector_->effective_limit("val");
  if (!is_zero(limit)) val = data_connector_->request("val", given_val_loader_);
  num_val_batches_ =
      val ? DataConnector::limit_batches(val->size(), limit, "limit_val_batches") : 0;
  validate_loop_->set_dataloader(val);
  fit_loop_->epoch_loop.num_val_batches = num_val_batches_;
}

void Trainer::check_val_check_interval() const {
  const int64_t every = fit_loop_->epoch_loop.val_check_batch;
  if (!options_.val_check_interval.is_fraction() && options_.check_val_every_n_epoch &&
      num_val_batches_ > 0 && every > num_training_batches_) {
    throw ConfigError(fmt::format(
        "val_check_interval ({}) must be less than or equal to the number of the training "
        "batches ({}). To disable validation set limit_val_batches=0; to validate on the total "
        "training batches set check_val_every_n_epoch to none",
        every, num_training_batches_));
  }
}

int64_t Trainer::estimated_stepping_batches() {
  if (fn_ != TrainerFn::Fitting || status_ != TrainerStatus::Running) {
    throw MisconfigurationError(
        "estimated_stepping_batches is known during fit() only (from configure_optimizers on)");
  }
  const int64_t max_steps = options_.max_steps;
  if (max_epochs_ == -1) {
    return max_steps == -1 ? std::numeric_limits<int64_t>::max() : max_steps;
  }
  if (!train_data_connected_) connect_train_data();
  const int64_t per_epoch =
      (num_training_batches_ + accumulate_grad_batches_ - 1) / accumulate_grad_batches_;
  const int64_t estimate = per_epoch * std::max<int64_t>(max_epochs_.value_or(1), 1);
  return max_steps == -1 ? estimate : std::min(estimate, max_steps);
}

void Trainer::reload_dataloaders_if_due() {
  const int64_t n = options_.reload_dataloaders_every_n_epochs;
  if (n <= 0 || current_epoch() == 0 || current_epoch() % n != 0) return;
  connect_train_data();
  connect_val_data();
  check_val_check_interval();
}

void Trainer::fit_impl(std::shared_ptr<DataLoader> train, std::shared_ptr<DataLoader> val,
                       const std::optional<std::string>& ckpt_path) {
  signal_connector_->register_handlers();
  struct RestoreHandlers {
    SignalConnector& signals;
    ~RestoreHandlers() { signals.restore_handlers(); }
  } restore_handlers{*signal_connector_};
  given_train_loader_ = std::move(train);
  given_val_loader_ = std::move(val);
  train_data_connected_ = false;
  configure_optimizers();
  ckpt_path_ = select_ckpt_path(ckpt_path, /*module_given=*/true);
  if (ckpt_path_) checkpoint_connector_->restore_training(*ckpt_path_);
  if (is_global_zero()) {
    const HParams hparams = merge_hparams(module_->hparams(), datamodule_);
    for (const auto& logger : loggers_) logger->log_hyperparams(hparams);
  }
  FULGUR_CALL_HOOK(*this, on_fit_start);
  // As Lightning's: after on_fit_start, where a finetuning callback rebuilds the param groups it
  // had added to the optimizers.
  if (ckpt_path_) checkpoint_connector_->restore_optimizers_and_schedulers();

  // Sanity check: a few validation batches before training, so a broken validation_step
  // fails in seconds rather than after an epoch. Not when resuming (it ran the first time), and
  // with the generators isolated, so training's random streams do not depend on it.
  bool val_connected = false;
  if (options_.num_sanity_val_steps != 0 && !is_zero(data_connector_->effective_limit("val")) &&
      !fit_loop_->restarting()) {
    RngIsolation isolated_rng;
    stage_ = RunningStage::Sanity;
    hooks::callbacks(*this, "on_sanity_check_start",
                     [&](Callback& cb) { cb.on_sanity_check_start(*this, *module_); });
    connect_val_data();
    val_connected = true;
    const int64_t steps = options_.num_sanity_val_steps == -1
                              ? num_val_batches_
                              : std::min(options_.num_sanity_val_steps, num_val_batches_);
    if (steps > 0) validate_loop_->run(steps, /*log=*/false);
    hooks::callbacks(*this, "on_sanity_check_end",
                     [&](Callback& cb) { cb.on_sanity_check_end(*this, *module_); });
    stage_ = RunningStage::Training;
    logger_connector_->reset();
  }
  // Already, when configure_optimizers asked for estimated_stepping_batches.
  if (!train_data_connected_) connect_train_data();
  if (!val_connected) connect_val_data();
  check_val_check_interval();
  // As Lightning's fit loop: with nothing to train (no batches, the limits reached already, a
  // stop asked for in on_fit_start) neither on_train_start nor on_train_end runs.
  if (!fit_loop_->done()) {
    FULGUR_CALL_HOOK(*this, on_train_start);
    // As Lightning: anomaly detection around the training loop only, and off again after it.
    std::optional<torch::autograd::DetectAnomalyGuard> detect_anomaly;
    if (options_.detect_anomaly) detect_anomaly.emplace();
    fit_loop_->run();
    detect_anomaly.reset();
    FULGUR_CALL_HOOK(*this, on_train_end);
  }
  FULGUR_CALL_HOOK(*this, on_fit_end);
  if (is_global_zero() && options_.enable_progress_bar) {
    if (fit_loop_->epoch_loop.max_steps_reached()) {
      std::cout << fmt::format("`Trainer.fit` stopped: `max_steps={}` reached.\n", options_.max_steps);
    } else if (max_epochs_ && *max_epochs_ != -1 && current_epoch() >= *max_epochs_) {
      std::cout << fmt::format("`Trainer.fit` stopped: `max_epochs={}` reached.\n", *max_epochs_);
    }
  }
}

Metrics Trainer::validate(Module& module, DataModule& datamodule,
                          std::optional<std::string> ckpt_path, bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Validating, module, &datamodule,
            [&] { out = evaluate_impl(false, nullptr, ckpt_path, verbose, true); });
  return out;
}

Metrics Trainer::validate(Module& module, std::shared_ptr<DataLoader> dataloader,
                          std::optional<std::string> ckpt_path, bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Validating, module, nullptr,
            [&] { out = evaluate_impl(false, dataloader, ckpt_path, verbose, true); });
  return out;
}

Metrics Trainer::test(Module& module, DataModule& datamodule, std::optional<std::string> ckpt_path,
                      bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Testing, module, &datamodule,
            [&] { out = evaluate_impl(true, nullptr, ckpt_path, verbose, true); });
  return out;
}

Metrics Trainer::test(Module& module, std::shared_ptr<DataLoader> dataloader,
                      std::optional<std::string> ckpt_path, bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Testing, module, nullptr,
            [&] { out = evaluate_impl(true, dataloader, ckpt_path, verbose, true); });
  return out;
}

std::vector<torch::Tensor> Trainer::predict(Module& module, DataModule& datamodule,
                                            std::optional<std::string> ckpt_path,
                                            bool return_predictions) {
  std::vector<torch::Tensor> out;
  run_stage(TrainerFn::Predicting, module, &datamodule,
            [&] { out = predict_impl(nullptr, ckpt_path, return_predictions, true); });
  return out;
}

std::vector<torch::Tensor> Trainer::predict(Module& module, std::shared_ptr<DataLoader> dataloader,
                                            std::optional<std::string> ckpt_path,
                                            bool return_predictions) {
  std::vector<torch::Tensor> out;
  run_stage(TrainerFn::Predicting, module, nullptr,
            [&] { out = predict_impl(dataloader, ckpt_path, return_predictions, true); });
  return out;
}

Metrics Trainer::validate(DataModule& datamodule, std::optional<std::string> ckpt_path,
                          bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Validating, previous_module(TrainerFn::Validating), &datamodule,
            [&] { out = evaluate_impl(false, nullptr, ckpt_path, verbose, false); });
  return out;
}

Metrics Trainer::validate(std::shared_ptr<DataLoader> dataloader,
                          std::optional<std::string> ckpt_path, bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Validating, previous_module(TrainerFn::Validating), nullptr,
            [&] { out = evaluate_impl(false, dataloader, ckpt_path, verbose, false); });
  return out;
}

Metrics Trainer::test(DataModule& datamodule, std::optional<std::string> ckpt_path,
                      bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Testing, previous_module(TrainerFn::Testing), &datamodule,
            [&] { out = evaluate_impl(true, nullptr, ckpt_path, verbose, false); });
  return out;
}

Metrics Trainer::test(std::shared_ptr<DataLoader> dataloader, std::optional<std::string> ckpt_path,
                      bool verbose) {
  Metrics out;
  run_stage(TrainerFn::Testing, previous_module(TrainerFn::Testing), nullptr,
            [&] { out = evaluate_impl(true, dataloader, ckpt_path, verbose, false); });
  return out;
}

std::vector<torch::Tensor> Trainer::predict(DataModule& datamodule,
                                            std::optional<std::string> ckpt_path,
                                            bool return_predictions) {
  std::vector<torch::Tensor> out;
  run_stage(TrainerFn::Predicting, previous_module(TrainerFn::Predicting), &datamodule,
            [&] { out = predict_impl(nullptr, ckpt_path, return_predictions, false); });
  return out;
}

std::vector<torch::Tensor> Trainer::predict(std::shared_ptr<DataLoader> dataloader,
                                            std::optional<std::string> ckpt_path,
                                            bool return_predictions) {
  std::vector<torch::Tensor> out;
  run_stage(TrainerFn::Predicting, previous_module(TrainerFn::Predicting), nullptr,
            [&] { out = predict_impl(dataloader, ckpt_path, return_predictions, false); });
  return out;
}

Module& Trainer::previous_module(TrainerFn fn) const {
  if (module_ == nullptr) {
    throw MisconfigurationError(fmt::format(
        "`Trainer.{}()` requires a Module when it hasn't been passed in a previous run",
        fn_name(fn)));
  }
  return *module_;
}

void Trainer::set_ckpt_path(std::optional<std::string> path) {
  ckpt_path_ = path;
  user_ckpt_path_ = std::move(path);
}

namespace {

// A checkpoint file in `dir` (links followed) whose name passes `wanted`.
struct Candidate {
  std::string path;
  int64_t modified_ns = 0;
};
void add_candidates(const fs::path& dir, const std::function<bool(const std::string&)>& wanted,
                    std::vector<Candidate>& out) {
  if (dir.empty()) return;
  for (const auto& entry : list_directory(dir.string())) {
    if (entry.is_regular_file && entry.name.ends_with(ModelCheckpoint::kExtension) &&
        wanted(entry.name)) {
      out.push_back({(dir / entry.name).string(), entry.modified_ns});
    }
  }
}

// `path` itself, when it is a checkpoint file.
void add_file(const std::string& path, std::vector<Candidate>& out) {
  const fs::path file(path);
  add_candidates(file.parent_path(), [&](const std::string& name) {
    return name == file.filename().string();
  }, out);
}

bool has_on_exception_checkpoint(const std::vector<std::shared_ptr<Callback>>& callbacks) {
  return std::any_of(callbacks.begin(), callbacks.end(), [](const auto& cb) {
    return dynamic_cast<const OnExceptionCheckpoint*>(cb.get()) != nullptr;
  });
}

// The newest of `candidates`; "" when there is none.
std::string newest(const std::vector<Candidate>& candidates) {
  const Candidate* newest = nullptr;
  for (const auto& c : candidates) {
    if (newest == nullptr || c.modified_ns > newest->modified_ns) newest = &c;
  }
  return newest == nullptr ? std::string() : newest->path;
}

}  // namespace

std::optional<std::string> Trainer::implicit_fit_ckpt_path() const {
  // A fit rerun after a crash resumes where the crash left it.
  if (!has_on_exception_checkpoint(callbacks_)) return std::nullopt;
  if (is_global_zero()) {
    warn("fit() was called without ckpt_path and an OnExceptionCheckpoint is configured: it "
         "resumes from the last checkpoint (ckpt_path=\"last\"), if there is one. Pass "
         "ckpt_path to choose, which also silences this warning");
  }
  return "last";
}

std::optional<std::string> Trainer::select_ckpt_path(const std::optional<std::string>& ckpt_path,
                                                     bool module_given) {
  const std::string fn = fn_name(fn_);
  std::optional<std::string> requested = ckpt_path;
  if (user_ckpt_path_ && requested) {
    if (is_global_zero()) {
      warn(fmt::format("`trainer.set_ckpt_path(\"{}\")` was called but then you passed "
                       "`trainer.{}(ckpt_path=\"{}\")`. The latter will be loaded.",
                       *user_ckpt_path_, fn, *requested));
    }
    user_ckpt_path_.reset();
  }
  if (!requested) requested = user_ckpt_path_;
  // As Lightning, for every stage: a SLURM job requeued after its signal save resumes from it.
  if (!requested && SLURMEnvironment::detect() &&
      !SignalConnector::hpc_resume_path(default_root_dir()).empty()) {
    requested = "hpc";
  }
  if (!requested && fn_ == TrainerFn::Fitting) requested = implicit_fit_ckpt_path();
  if (!requested && !module_given) {
    requested = "best";
    if (is_global_zero()) {
      const char* tip = has_on_exception_checkpoint(callbacks_)
                            ? " There is also an on-exception checkpoint available, however it "
                              "is used by default only when fitting."
                            : "";
      warn(fmt::format(
          "`.{}()` was called without a model and without ckpt_path. The best model of the "
          "previous `fit` call will be used.{} You can pass ckpt_path=\"best\" to use the best "
          "model or ckpt_path=\"last\" to use the last model. If you pass a value, this warning "
          "will be silenced.",
          fn, tip));
    }
  }
  return requested ? resolve_ckpt_path(*requested) : std::nullopt;
}

std::optional<std::string> Trainer::resolve_ckpt_path(const std::string& ckpt_path) const {
  if (ckpt_path.empty()) {
    throw ConfigError(
        "ckpt_path is empty: pass the path of a .ckpt file, \"best\", \"last\" or \"hpc\"");
  }
  std::vector<const ModelCheckpoint*> model_checkpoints;
  std::vector<const OnExceptionCheckpoint*> exception_checkpoints;
  for (const auto& cb : callbacks_) {
    if (auto* mc = dynamic_cast<const ModelCheckpoint*>(cb.get())) model_checkpoints.push_back(mc);
    if (auto* oe = dynamic_cast<const OnExceptionCheckpoint*>(cb.get())) {
      exception_checkpoints.push_back(oe);
    }
  }
  // As Lightning: the hpc checkpoint with the largest number.
  const std::string hpc = SignalConnector::hpc_resume_path(default_root_dir());
  if (ckpt_path == "best") {
    if (model_checkpoints.empty() || model_checkpoints.front()->best_model_path().empty()) {
      throw ConfigError(
          "ckpt_path=\"best\" but no checkpoint was saved by a ModelCheckpoint in this process; "
          "run fit first or pass the path of a .ckpt file");
    }
    if (model_checkpoints.size() > 1 && is_global_zero()) {
      warn("ckpt_path=\"best\" with several ModelCheckpoint callbacks: the first one's best "
           "checkpoint is used");
    }
    return model_checkpoints.front()->best_model_path();
  }
  if (ckpt_path == "hpc") {
    if (hpc.empty()) {
      throw ConfigError(fmt::format("ckpt_path=\"hpc\" but there is no {}N.ckpt in {}",
                                    kHpcCheckpointPrefix, default_root_dir()));
    }
    return hpc;
  }
  if (ckpt_path != "last") return ckpt_path;
  // As Lightning: the newest of every ModelCheckpoint's last checkpoints (last.ckpt,
  // last-v1.ckpt, ...) and the OnExceptionCheckpoints' files; and a checkpoint written on a
  // signal (hpc_ckpt_N.ckpt).
  std::vector<Candidate> last;
  if (!hpc.empty()) add_file(hpc, last);
  for (const auto* mc : model_checkpoints) {
    add_candidates(mc->dirpath(), [](const std::string& name) {
      return name.starts_with(ModelCheckpoint::kLastName);
    }, last);
  }
  for (const auto* oe : exception_checkpoints) add_file(oe->ckpt_path(), last);
  if (last.empty()) {
    if (is_global_zero()) {
      warn(fmt::format("ckpt_path=\"last\" is set, but there is no last checkpoint available in {}. "
                       "No checkpoint will be loaded. HINT: set ModelCheckpoint(save_last=true)",
                       model_checkpoints.empty() ? default_root_dir()
                                                 : model_checkpoints.front()->dirpath()));
    }
    return std::nullopt;
  }
  return newest(last);
}

Metrics Trainer::evaluate_impl(bool testing, std::shared_ptr<DataLoader> loader,
                               const std::optional<std::string>& ckpt_path, bool verbose,
                               bool module_given) {
  ckpt_path_ = select_ckpt_path(ckpt_path, module_given);
  if (ckpt_path_) checkpoint_connector_->restore_model(*ckpt_path_);
  const std::string stage = testing ? "test" : "val";
  loader = data_connector_->request(stage, loader);
  if (!loader) {
    throw MisconfigurationError(fmt::format(
        "No `{}_dataloader()` defined to run `Trainer.{}`: pass a DataLoader or use a DataModule "
        "that provides one",
        stage, testing ? "test" : "validate"));
  }
  const int64_t n = DataConnector::limit_batches(
      loader->size(), data_connector_->effective_limit(stage),
      testing ? "limit_test_batches" : "limit_val_batches");
  (testing ? num_test_batches_ : num_val_batches_) = n;
  stage_ = testing ? RunningStage::Testing : RunningStage::Validating;
  EvaluationLoop& loop = testing ? *test_loop_ : *validate_loop_;
  loop.set_dataloader(loader);
  if (n == 0) return {};  // no batches: no hooks, nothing returned, as Lightning's skip
  Metrics metrics = loop.run(n, /*log=*/true);
  if (verbose && is_global_zero()) print_results(metrics, testing);
  return metrics;
}

std::vector<torch::Tensor> Trainer::predict_impl(std::shared_ptr<DataLoader> loader,
                                                 const std::optional<std::string>& ckpt_path,
                                                 bool return_predictions, bool module_given) {
  ckpt_path_ = select_ckpt_path(ckpt_path, module_given);
  if (ckpt_path_) checkpoint_connector_->restore_model(*ckpt_path_);
  loader = data_connector_->request("predict", loader);
  if (!loader) {
    throw MisconfigurationError(
        "No `predict_dataloader()` defined to run `Trainer.predict`: pass a DataLoader or use a "
        "DataModule that provides one");
  }
  num_predict_batches_ = DataConnector::limit_batches(
      loader->size(), data_connector_->effective_limit("predict"), "limit_predict_batches");
  stage_ = RunningStage::Predicting;
  predict_loop_->set_dataloader(loader);
  if (num_predict_batches_ == 0) return {};  // no batches: no hooks, as Lightning's skip
  // As Lightning: kept when returned, or when a writer wants them all at the epoch's end.
  const bool epoch_writer = std::any_of(callbacks_.begin(), callbacks_.end(), [](const auto& cb) {
    const auto* writer = dynamic_cast<const BasePredictionWriter*>(cb.get());
    return writer != nullptr && writer->interval() != WriteInterval::Batch;
  });
  auto predictions = predict_loop_->run(num_predict_batches_, return_predictions || epoch_writer);
  if (!return_predictions) predictions.clear();
  return predictions;
}

void Trainer::print_results(const Metrics& metrics, bool testing) const {
  if (metrics.empty()) return;
  const std::string header = testing ? "Test metric" : "Validate metric";
  size_t width = header.size();
  for (const auto& [k, _] : metrics) width = std::max(width, k.size());
  std::string rule;
  for (size_t i = 0; i < width + 24; ++i) rule += "─";
  std::string out = rule + "\n" + fmt::format("  {:<{}}    {}\n", header, width, "DataLoader 0") +
                    rule + "\n";
  for (const auto& [k, v] : metrics) out += fmt::format("  {:<{}}    {:.6g}\n", k, width, v);
  out += rule + "\n";
  std::cout << out << std::flush;
}

void Trainer::stop_on_signal(int signal) {
  const std::string name = SignalConnector::signal_name(signal);
  const std::string path =
      strategy_->broadcast(SignalConnector::hpc_save_path(default_root_dir()));
  save_checkpoint(path);
  // An asynchronous writer must be done before the process is told it may exit.
  strategy_->checkpoint_io()->teardown();
  strategy_->barrier("stop_on_signal");
  throw Interrupted(fmt::format("received {}: stopped after step {} and saved {}; resume with "
                                "ckpt_path=\"last\" (or the file)",
                                name, global_step(), path),
                    signal, path);
}

void Trainer::save_checkpoint(const std::string& path, bool weights_only) {
  if (module_ == nullptr) {
    throw MisconfigurationError("save_checkpoint: the Trainer has no Module yet; call fit first");
  }
  ProfiledAction timed(profiler(), "save_checkpoint");
  strategy_->save_checkpoint(checkpoint_connector_->dump(weights_only), path);
}

}  // namespace fulgur
