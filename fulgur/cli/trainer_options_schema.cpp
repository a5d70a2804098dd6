#include "fulgur/cli/trainer_options_schema.h"

namespace fulgur {
namespace {

// A part chosen by name; `null` leaves the name unset (the Trainer's default applies).
template <typename Flag>
void add_named(OptionSchema& schema, const std::string& key, Flag& flag, std::string help) {
  auto render = [&flag]() -> OptionText {
    if (flag.name.empty()) return std::nullopt;
    return flag.name;
  };
  schema.add(OptionSpec{
      .key = key,
      .type = "string|null",
      .help = std::move(help),
      .default_value = render(),
      .assign =
          [&flag](const OptionText& text) {
            const auto name = OptionTraits<std::optional<std::string>>::parse(text);
            if (name && name->empty()) throw OptionParseError("give a name or null");
            flag.name = name.value_or("");
            flag.instance = nullptr;
          },
      .current = render,
  });
}

}  // namespace

void add_trainer_options(OptionSchema& schema, TrainerOptions& o, const std::string& prefix,
                         TrainerComponentLists lists) {
  const auto key = [&prefix](const char* name) { return prefix + "." + name; };

  add_named(schema, key("accelerator"), o.accelerator,
            "hardware: auto, cpu, cuda (alias gpu) or a registered name");
  add_named(schema, key("strategy"), o.strategy,
            "auto, single_device, ddp, ddp_find_unused_parameters_true or a registered name");
  schema.add(key("devices"), o.devices, "auto, a count (-1 = all) or ids such as 0,1");
  schema.add(key("num_nodes"), o.num_nodes, "number of machines");
  add_named(
      schema, key("precision"), o.precision,
      "32-true, 64-true, 16-mixed, bf16-mixed, 16-true, bf16-true or an alias (null = 32-true)");

  if (lists.loggers != nullptr) {
    schema.add(lists.loggers->option_spec(
        "true: <default_root_dir>/lightning_logs/version_N; false: none; or loggers by class "
        "name (below)"));
  } else {
    auto render_logger = [&o]() -> OptionText { return o.logger.enabled ? "true" : "false"; };
    schema.add(OptionSpec{
        .key = key("logger"),
        .type = "bool",
        .help = "log to <default_root_dir>/lightning_logs/version_N (false: no logger)",
        .default_value = render_logger(),
        .assign =
            [&o](const OptionText& text) {
              o.logger = LoggerFlag(OptionTraits<bool>::parse(text));
            },
        .current = render_logger,
    });
  }
  if (lists.callbacks != nullptr) {
    schema.add(lists.callbacks->option_spec(
        "callbacks by class name (below), run after the program's own"));
  }

  schema.add(key("fast_dev_run"), o.fast_dev_run,
             "run N batches (true = 1) of each stage to find bugs; no checkpoints or logs");
  schema.add(key("max_epochs"), o.max_epochs,
             "stop after this many epochs (null: 1000 when max_steps is -1; -1 = no limit)");
  schema.add(key("min_epochs"), o.min_epochs, "train at least this many epochs");
  schema.add(key("max_steps"), o.max_steps, "stop after this many optimizer steps (-1 = no limit)");
  schema.add(key("min_steps"), o.min_steps, "train at least this many optimizer steps");
  schema.add(key("max_time"), o.max_time, "stop after this much time, as DD:HH:MM:SS");

  const char* kLimit = "of each epoch: a fraction (has a '.') or a count of batches";
  schema.add(key("limit_train_batches"), o.limit_train_batches,
             std::string("training batches ") + kLimit);
  schema.add(key("limit_val_batches"), o.limit_val_batches,
             std::string("validation batches ") + kLimit);
  schema.add(key("limit_test_batches"), o.limit_test_batches,
             std::string("test batches ") + kLimit);
  schema.add(key("limit_predict_batches"), o.limit_predict_batches,
             std::string("prediction batches ") + kLimit);
  schema.add(key("overfit_batches"), o.overfit_batches,
             "train and validate on this fraction or count of training batches (0 = off)");
  schema.add(key("val_check_interval"), o.val_check_interval,
             "validate every fraction of an epoch, or every N training batches");
  schema.add(key("check_val_every_n_epoch"), o.check_val_every_n_epoch,
             "validate every N epochs (null: only by val_check_interval)");
  schema.add(key("num_sanity_val_steps"), o.num_sanity_val_steps,
             "validation batches run before training (-1 = all)");
  schema.add(key("log_every_n_steps"), o.log_every_n_steps, "log training metrics every N steps");

  schema.add(key("enable_checkpointing"), o.enable_checkpointing,
             "add the default ModelCheckpoint");
  schema.add(key("enable_progress_bar"), o.enable_progress_bar, "show the progress bar");
  schema.add(key("enable_model_summary"), o.enable_model_summary,
             "print the model summary when fit starts");

  schema.add(key("accumulate_grad_batches"), o.accumulate_grad_batches,
             "accumulate gradients over N batches before each optimizer step");
  schema.add(key("gradient_clip_val"), o.gradient_clip_val, "clip gradients at this value");
  schema.add(key("gradient_clip_algorithm"), o.gradient_clip_algorithm,
             "norm or value (null = norm)");

  schema.add(key("deterministic"), o.deterministic, "use deterministic algorithms");
  schema.add(key("benchmark"), o.benchmark, "let cuDNN pick the fastest algorithms");
  schema.add(key("inference_mode"), o.inference_mode,
             "evaluate under torch inference mode (false: no_grad)");
  add_named(schema, key("profiler"), o.profiler,
            "simple: time every hook, step and batch fetch and report them after each stage "
            "(null = no profiler)");
  schema.add(key("sync_batchnorm"), o.sync_batchnorm,
             "normalize fulgur::nn::SyncBatchNorm layers over every rank's batch");
  schema.add(key("detect_anomaly"), o.detect_anomaly,
             "raise when a backward makes a NaN, naming the function (slow)");
  schema.add(key("reload_dataloaders_every_n_epochs"), o.reload_dataloaders_every_n_epochs,
             "rebuild the dataloaders every N epochs (0 = never)");

  auto render_root = [&o]() -> OptionText {
    if (o.default_root_dir.empty()) return std::nullopt;
    return o.default_root_dir;
  };
  schema.add(OptionSpec{
      .key = key("default_root_dir"),
      .type = "string|null",
      .help = "where logs and checkpoints go (null = the current directory)",
      .default_value = render_root(),
      .assign =
          [&o](const OptionText& text) {
            o.default_root_dir = OptionTraits<std::optional<std::string>>::parse(text).value_or("");
          },
      .current = render_root,
  });
}

}  // namespace fulgur
