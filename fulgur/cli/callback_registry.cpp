#include "fulgur/cli/callback_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "fulgur/callbacks/backbone_finetuning.h"
#include "fulgur/callbacks/batch_size_finder.h"
#include "fulgur/callbacks/device_stats_monitor.h"
#include "fulgur/callbacks/early_stopping.h"
#include "fulgur/callbacks/ema_weight_averaging.h"
#include "fulgur/callbacks/gradient_accumulation_scheduler.h"
#include "fulgur/callbacks/learning_rate_finder.h"
#include "fulgur/callbacks/learning_rate_monitor.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/callbacks/model_pruning.h"
#include "fulgur/callbacks/model_summary.h"
#include "fulgur/callbacks/on_exception_checkpoint.h"
#include "fulgur/callbacks/stochastic_weight_averaging.h"
#include "fulgur/callbacks/throughput_monitor.h"
#include "fulgur/callbacks/timer.h"
#include "fulgur/callbacks/weight_averaging.h"

namespace fulgur {
namespace {

// Callbacks whose constructors take plain values get a small options struct here.
struct GradientAccumulationSchedulerArgs {
  std::map<int64_t, int64_t> scheduling;
};
// parameters_to_prune and parameter_names name objects of the program: set them in code.
struct ModelPruningArgs {
  std::string pruning_fn;
  bool use_global_unstructured = true;
  BatchCount amount = 0.5;  // 0.5: a fraction, 3: a count (the type decides, as in Python)
  bool apply_pruning = true;
  bool make_pruning_permanent = true;
  bool use_lottery_ticket_hypothesis = true;
  std::optional<int64_t> pruning_dim;
  std::optional<double> pruning_norm;
  int verbose = 0;
  bool prune_on_train_epoch_end = true;
};
struct ModelSummaryArgs {
  int max_depth = 1;
};
struct TimerArgs {
  std::optional<std::string> duration;
  std::string interval = "step";
  bool verbose = true;
};

// A duration written as seconds (Lightning takes a timedelta; a number is what text carries).
void add_seconds(OptionSchema& args, const std::string& key,
                 std::optional<std::chrono::duration<double>>& field, std::string help) {
  using Seconds = std::optional<double>;
  auto render = [&field]() -> OptionText {
    return OptionTraits<Seconds>::render(field ? Seconds(field->count()) : std::nullopt);
  };
  args.add(OptionSpec{
      .key = key,
      .type = OptionTraits<Seconds>::type_name(),
      .help = std::move(help),
      .default_value = render(),
      .assign =
          [&field](const OptionText& text) {
            const Seconds seconds = OptionTraits<Seconds>::parse(text);
            if (seconds) {
              field = std::chrono::duration<double>(*seconds);
            } else {
              field.reset();
            }
          },
      .current = render,
  });
}

void bind_early_stopping(OptionSchema& a, EarlyStoppingOptions& o) {
  a.add("monitor", o.monitor, "the logged metric to watch (required)");
  a.add("min_delta", o.min_delta, "the least change that counts as an improvement");
  a.add("patience", o.patience, "checks without improvement before stopping");
  a.add("verbose", o.verbose, "print each check's outcome");
  a.add("mode", o.mode, "min or max: which direction improves");
  a.add("strict", o.strict, "a missing metric is an error (false: the check is skipped)");
  a.add("check_finite", o.check_finite, "stop when the metric is NaN or infinite");
  a.add("stopping_threshold", o.stopping_threshold, "stop once the metric is better than this");
  a.add("divergence_threshold", o.divergence_threshold, "stop once the metric is worse than this");
  a.add("check_on_train_epoch_end", o.check_on_train_epoch_end,
        "check at the training epoch's end (null: decided at setup, as Lightning)");
}

void bind_backbone_finetuning(OptionSchema& a, BackboneFinetuningOptions& o) {
  a.add("unfreeze_backbone_at_epoch", o.unfreeze_backbone_at_epoch,
        "the epoch at which the backbone is unfrozen");
  a.add("backbone_initial_ratio_lr", o.backbone_initial_ratio_lr,
        "the backbone's first rate as a fraction of the first group's");
  a.add("backbone_initial_lr", o.backbone_initial_lr,
        "the backbone's first rate (null: by backbone_initial_ratio_lr)");
  a.add("should_align", o.should_align, "follow the first group's rate once it is reached");
  a.add("initial_denom_lr", o.initial_denom_lr, "kept for Lightning's signature");
  a.add("train_bn", o.train_bn, "the backbone's batch norms join its param group");
  a.add("verbose", o.verbose, "print both rates at each epoch's start");
  a.add("rounding", o.rounding, "decimals printed");
  a.add("backbone", o.backbone, "the name of the Module's submodule to finetune");
}

// swa_lrs: one float for every param group, or a list of them ("0.01", "[0.01, 0.02]").
void add_swa_lrs(OptionSchema& a, std::vector<double>& field) {
  auto render = [&field]() -> OptionText {
    if (field.size() == 1) return render_float(field.front());
    std::vector<std::string> items;
    for (double lr : field) items.push_back(render_float(lr));
    return fmt::format("[{}]", fmt::join(items, ", "));
  };
  a.add(OptionSpec{
      .key = "swa_lrs",
      .type = "float|list[float]",
      .help = "the rate SWALR anneals to, for every param group or one per group (required)",
      .default_value = render(),
      .assign =
          [&field](const OptionText& text) {
            std::string body = require_text(text);
            const auto first = body.find_first_not_of(' ');
            if (first == std::string::npos || body[first] != '[') {
              field = {parse_float_text(body)};
              return;
            }
            const auto close = body.find_last_not_of(' ');
            if (body[close] != ']') throw OptionParseError("write a float or [float, ...]");
            std::vector<double> lrs;
            std::stringstream items(body.substr(first + 1, close - first - 1));
            for (std::string item; std::getline(items, item, ',');) {
              lrs.push_back(parse_float_text(item));
            }
            field = std::move(lrs);
          },
      .current = render,
  });
}

// swa_epoch_start: an epoch number (int) or a fraction of max_epochs (float), as Lightning's
// Union[int, float].
void add_swa_epoch_start(OptionSchema& a, std::variant<int64_t, double>& field) {
  auto render = [&field]() -> OptionText {
    if (const int64_t* epoch = std::get_if<int64_t>(&field)) return std::to_string(*epoch);
    return render_float(std::get<double>(field));
  };
  a.add(OptionSpec{
      .key = "swa_epoch_start",
      .type = "int|float",
      .help = "the epoch averaging starts at (from 1), or that fraction of max_epochs",
      .default_value = render(),
      .assign =
          [&field](const OptionText& text) {
            const std::string& value = require_text(text);
            try {
              field = parse_int_text(value);
            } catch (const OptionParseError&) {
              field = parse_float_text(value);
            }
          },
      .current = render,
  });
}

void bind_stochastic_weight_averaging(OptionSchema& a, StochasticWeightAveragingOptions& o) {
  // avg_fn is code (the running mean stays) and device stays the CPU, Lightning's default.
  add_swa_lrs(a, o.swa_lrs);
  add_swa_epoch_start(a, o.swa_epoch_start);
  a.add("annealing_epochs", o.annealing_epochs, "epochs SWALR takes to reach swa_lrs");
  a.add("annealing_strategy", o.annealing_strategy, "cos or linear");
}

// avg_fn is code (WeightAveraging's mean stays) and device the Module's, Lightning's defaults.
void bind_weight_averaging(OptionSchema& a, WeightAveragingOptions& o) {
  a.add("use_buffers", o.use_buffers, "average the buffers too (false: copy the Module's)");
}

void bind_ema_weight_averaging(OptionSchema& a, EMAWeightAveragingOptions& o) {
  a.add("use_buffers", o.use_buffers, "average the buffers too (false: copy the Module's)");
  a.add("decay", o.decay,
        "the average's weight at each update: decay * average + (1 - decay) * now");
  a.add("update_every_n_steps", o.update_every_n_steps,
        "update after every n-th optimizer step (0: never)");
  a.add("update_starting_at_step", o.update_starting_at_step,
        "the first step index that updates (null: 0)");
  a.add("update_starting_at_epoch", o.update_starting_at_epoch,
        "also update after each epoch from this index (null: never)");
}

void bind_learning_rate_monitor(OptionSchema& a, LearningRateMonitorOptions& o) {
  a.add("logging_interval", o.logging_interval,
        "step or epoch (null: as each scheduler's interval)");
  a.add("log_momentum", o.log_momentum, "also log momentum (Adam's beta1)");
  a.add("log_weight_decay", o.log_weight_decay, "also log weight decay");
}

void bind_model_checkpoint(OptionSchema& a, ModelCheckpointOptions& o) {
  a.add("dirpath", o.dirpath, "where checkpoints go (\"\": <log_dir>/checkpoints)");
  a.add("filename", o.filename, "file name template (\"\": {epoch}-{step})");
  a.add("monitor", o.monitor, "metric that ranks checkpoints (\"\": keep the latest)");
  a.add("mode", o.mode, "min or max: which direction is better");
  a.add("verbose", o.verbose, "print a line per monitored save or miss");
  a.add("save_last", o.save_last,
        "also keep last.ckpt (link: a symbolic link to the newest checkpoint)");
  a.add("save_top_k", o.save_top_k, "how many best checkpoints to keep (-1: all, 0: none)");
  a.add("save_on_exception", o.save_on_exception, "save when fit fails with an exception");
  a.add("save_weights_only", o.save_weights_only, "save only the weights");
  a.add("auto_insert_metric_name", o.auto_insert_metric_name,
        "write {val_loss} as val_loss=0.12 in file names");
  a.add("every_n_train_steps", o.every_n_train_steps, "save every N optimizer steps");
  a.add("every_n_epochs", o.every_n_epochs,
        "save every N epochs (null: 1 unless another trigger is set)");
  add_seconds(a, "train_time_interval", o.train_time_interval,
              "save after this many seconds of training");
  a.add("save_on_train_epoch_end", o.save_on_train_epoch_end,
        "save at the training epoch's end (null: Lightning's rule)");
  a.add("enable_version_counter", o.enable_version_counter,
        "name a colliding file -v1, -v2, ... (false: overwrite)");
}

void bind_on_exception_checkpoint(OptionSchema& a, OnExceptionCheckpointOptions& o) {
  a.add("dirpath", o.dirpath, "where the checkpoint goes (required)");
  a.add("filename", o.filename, "file name without .ckpt");
}

void bind_device_stats_monitor(OptionSchema& a, DeviceStatsMonitorOptions& o) {
  a.add("cpu_stats", o.cpu_stats, "also log the CPU's statistics on a CUDA run");
}

void bind_gradient_accumulation_scheduler(OptionSchema& a, GradientAccumulationSchedulerArgs& o) {
  a.add("scheduling", o.scheduling,
        "epoch -> batches accumulated from that epoch on, e.g. {0: 1, 4: 2} (required)");
}

void bind_throughput_monitor(OptionSchema& a, ThroughputMonitorOptions& o) {
  // batch_size_fn is code: the size of a batch's first dimension is used.
  a.add("window_size", o.window_size, "batches the rates are averaged over (>= 2)");
  a.add("separator", o.separator, "joins the parts of the metric names");
}

void bind_learning_rate_finder(OptionSchema& a, LRFinderOptions& o) {
  a.add("min_lr", o.min_lr, "the smallest learning rate tried");
  a.add("max_lr", o.max_lr, "the largest learning rate tried");
  a.add("num_training_steps", o.num_training, "optimizer steps of the search, one rate each");
  a.add("mode", o.mode, "exponential or linear: how the rate grows from step to step");
  a.add("early_stop_threshold", o.early_stop_threshold,
        "stop once the loss exceeds this multiple of the best (null: never)");
  a.add("update_attr", o.update_attr, "train at the suggestion (written to the Module's hparams)");
  a.add("attr_name", o.attr_name, "the hparam holding the rate (\"\": lr or learning_rate)");
}

void bind_batch_size_finder(OptionSchema& a, BatchSizeFinderOptions& o) {
  a.add("mode", o.mode, "power (double until out of memory) or binsearch (then bisect)");
  a.add("steps_per_trial", o.steps_per_trial, "training steps (and validation batches) per size");
  a.add("init_val", o.init_val, "the first batch size tried");
  a.add("max_trials", o.max_trials, "the most sizes tried");
  a.add("batch_arg_name", o.batch_arg_name, "the hparam the data hooks read the size from");
  a.add("margin", o.margin, "binsearch: give back this fraction of the size found");
  a.add("max_val", o.max_val, "the largest batch size tried");
}

void bind_model_pruning(OptionSchema& a, ModelPruningArgs& o) {
  a.add("pruning_fn", o.pruning_fn,
        "l1_unstructured, random_unstructured, ln_structured or random_structured (required)");
  a.add("use_global_unstructured", o.use_global_unstructured,
        "rank the entries of all the parameters together");
  a.add("amount", o.amount, "what each pruning removes: a fraction (0.5) or a count (3)");
  a.add("apply_pruning", o.apply_pruning, "prune at all");
  a.add("make_pruning_permanent", o.make_pruning_permanent,
        "drop the masks when training ends (the zeros stay)");
  a.add("use_lottery_ticket_hypothesis", o.use_lottery_ticket_hypothesis,
        "reset the surviving weights to their first values after each pruning");
  a.add("pruning_dim", o.pruning_dim, "structured rules: the dimension whose slices go");
  a.add("pruning_norm", o.pruning_norm, "ln_structured: the norm that ranks the slices");
  a.add("verbose", o.verbose, "0: quiet, 1: print the sparsity, 2: also per parameter");
  a.add("prune_on_train_epoch_end", o.prune_on_train_epoch_end,
        "prune at the training epoch's end (false: at the validation epoch's end)");
}

std::shared_ptr<Callback> make_model_pruning(const ModelPruningArgs& o) {
  if (o.pruning_fn.empty()) {
    throw ConfigError(
        "ModelPruning needs `pruning_fn`: l1_unstructured, random_unstructured, ln_structured or "
        "random_structured");
  }
  const PruningAmount amount = o.amount.is_fraction()
                                   ? PruningAmount(std::get<double>(o.amount.value))
                                   : PruningAmount(std::get<int64_t>(o.amount.value));
  return std::make_shared<ModelPruning>(
      o.pruning_fn, ModelPruningOptions{.use_global_unstructured = o.use_global_unstructured,
                                        .amount = amount,
                                        .apply_pruning = o.apply_pruning,
                                        .make_pruning_permanent = o.make_pruning_permanent,
                                        .use_lottery_ticket_hypothesis =
                                            o.use_lottery_ticket_hypothesis,
                                        .pruning_dim = o.pruning_dim,
                                        .pruning_norm = o.pruning_norm,
                                        .verbose = o.verbose,
                                        .prune_on_train_epoch_end = o.prune_on_train_epoch_end});
}

void bind_model_summary(OptionSchema& a, ModelSummaryArgs& o) {
  a.add("max_depth", o.max_depth, "layers shown, by depth of nesting");
}

void bind_timer(OptionSchema& a, TimerArgs& o) {
  a.add(OptionSpec{
      .key = "duration",
      .type = "string|null",
      .help = "stop training after this long, as DD:HH:MM:SS (required)",
      .default_value = std::nullopt,
      .assign =
          [&o](const OptionText& text) {
            auto duration = OptionTraits<std::optional<std::string>>::parse(text);
            if (duration) {
              try {
                Timer::parse(*duration);
              } catch (const ConfigError&) {
                throw OptionParseError("write DD:HH:MM:SS, e.g. 00:12:00:00");
              }
            }
            o.duration = std::move(duration);
          },
      .current = [&o]() -> OptionText { return o.duration; },
  });
  a.add("interval", o.interval, "when the time is checked: step (each batch) or epoch");
  a.add("verbose", o.verbose, "say when the time limit stops training");
}

std::shared_ptr<Callback> make_timer(const TimerArgs& o) {
  if (!o.duration) {
    throw ConfigError("Timer needs `duration`: how long training may run, as DD:HH:MM:SS");
  }
  if (o.interval != "step" && o.interval != "epoch") {
    throw ConfigError(fmt::format(
        "Unsupported parameter value `Timer(interval={})`. Possible choices are: step, epoch",
        o.interval));
  }
  return std::make_shared<Timer>(
      Timer::parse(*o.duration),
      TimerOptions{.interval = o.interval == "epoch" ? TimerInterval::Epoch : TimerInterval::Step,
                   .verbose = o.verbose});
}

template <typename C, typename Options>
std::shared_ptr<Callback> make_callback(const Options& options) {
  return std::make_shared<C>(options);
}

}  // namespace

ComponentRegistry<Callback>& callback_registry() {
  static ComponentRegistry<Callback>* registry = [] {
    auto* r = new ComponentRegistry<Callback>("callback");
    r->add<BackboneFinetuningOptions>(
        "BackboneFinetuning", "trains the head first, then unfreezes the backbone at an epoch",
        bind_backbone_finetuning, make_callback<BackboneFinetuning, BackboneFinetuningOptions>);
    r->add<StochasticWeightAveragingOptions>(
        "StochasticWeightAveraging", "averages the weights of the last epochs (SWA)",
        bind_stochastic_weight_averaging,
        make_callback<StochasticWeightAveraging, StochasticWeightAveragingOptions>);
    r->add<WeightAveragingOptions>(
        "WeightAveraging", "averages the weights after every optimizer step (the mean)",
        bind_weight_averaging, make_callback<WeightAveraging, WeightAveragingOptions>);
    r->add<EMAWeightAveragingOptions>(
        "EMAWeightAveraging", "an exponential moving average of the weights",
        bind_ema_weight_averaging, make_callback<EMAWeightAveraging, EMAWeightAveragingOptions>);
    r->add<EarlyStoppingOptions>(
        "EarlyStopping", "stops fitting when a monitored metric stops improving",
        bind_early_stopping, make_callback<EarlyStopping, EarlyStoppingOptions>);
    r->add<LearningRateMonitorOptions>(
        "LearningRateMonitor", "logs each optimizer's learning rate while fitting",
        bind_learning_rate_monitor, make_callback<LearningRateMonitor, LearningRateMonitorOptions>);
    r->add<ModelCheckpointOptions>(
        "ModelCheckpoint", "saves checkpoints while fitting (the latest, or the best k)",
        bind_model_checkpoint, make_callback<ModelCheckpoint, ModelCheckpointOptions>);
    r->add<OnExceptionCheckpointOptions>(
        "OnExceptionCheckpoint", "saves a checkpoint when fit fails or stops on a signal",
        bind_on_exception_checkpoint,
        make_callback<OnExceptionCheckpoint, OnExceptionCheckpointOptions>);
    r->add<DeviceStatsMonitorOptions>(
        "DeviceStatsMonitor", "logs the accelerator's memory statistics during training",
        bind_device_stats_monitor, make_callback<DeviceStatsMonitor, DeviceStatsMonitorOptions>);
    r->add<GradientAccumulationSchedulerArgs>(
        "GradientAccumulationScheduler", "changes accumulate_grad_batches by epoch",
        bind_gradient_accumulation_scheduler,
        [](const GradientAccumulationSchedulerArgs& o) -> std::shared_ptr<Callback> {
          return std::make_shared<GradientAccumulationScheduler>(o.scheduling);
        });
    r->add<ThroughputMonitorOptions>(
        "ThroughputMonitor", "logs batches and samples per second during training",
        bind_throughput_monitor, make_callback<ThroughputMonitor, ThroughputMonitorOptions>);
    r->add<ModelPruningArgs>("ModelPruning",
                             "prunes parameters at epoch ends (torch.nn.utils.prune's rules)",
                             bind_model_pruning, make_model_pruning);
    r->add<ModelSummaryArgs>("ModelSummary", "prints the model's layers when fit starts",
                             bind_model_summary,
                             [](const ModelSummaryArgs& o) -> std::shared_ptr<Callback> {
                               return std::make_shared<ModelSummary>(o.max_depth);
                             });
    r->add<LRFinderOptions>(
        "LearningRateFinder", "searches a learning rate when fit starts, then trains at it",
        bind_learning_rate_finder, make_callback<LearningRateFinder, LRFinderOptions>);
    r->add<BatchSizeFinderOptions>(
        "BatchSizeFinder", "searches the largest batch size that fits when fit starts",
        bind_batch_size_finder, make_callback<BatchSizeFinder, BatchSizeFinderOptions>);
    r->add<TimerArgs>("Timer", "stops training after a given time", bind_timer, make_timer);
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
