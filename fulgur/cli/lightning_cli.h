#pragma once
// fulgur::LightningCLI — Lightning's LightningCLI for a C++ program:
//
//   prog {fit,validate,test,predict} [--config FILE.yaml ...] [--trainer.KEY=VALUE ...]
//        [--model.KEY=VALUE ...] [--data.KEY=VALUE ...] [--seed_everything=N] [--ckpt_path=P]
//        [--print_config] [--help]
//
// The CLI owns the TrainerOptions (every scalar option bound under `trainer.`), the seed
// (`seed_everything`) and `ckpt_path`; the program binds its own model/data fields with
// add_argument. Values are applied in this order: the defaults, each --config file in the
// order given, then the command-line keys in the order given (so the command line wins).
// Both `--key=value` and `--key value` work; a bool key given alone means true.
//
// Callbacks and loggers are chosen by class name from callback_registry() and
// logger_registry(), in jsonargparse's forms (see component_list.h):
//   trainer: {callbacks: [{class_path: EarlyStopping, init_args: {monitor: val_loss}}],
//             logger: {class_path: CSVLogger, init_args: {save_dir: logs}}}
//   --trainer.callbacks+=EarlyStopping --trainer.callbacks.monitor=val_loss
//   --trainer.logger=CSVLogger --trainer.logger.save_dir=logs
// When parse returns Run they are built: trainer_options().callbacks holds trainer_defaults'
// callbacks, then the chosen ones, then (unless turned off) the SaveConfigCallback that writes
// config_yaml() to <log_dir>/config.yaml; trainer_options().logger the chosen loggers (`true`
// keeps trainer_defaults' logger).
//
// Guarantees: every mistake (unknown key or subcommand, bad value, unreadable or invalid YAML,
// missing value) raises ConfigError with a one-line message naming what was wrong and the
// nearest valid key; parse never prints, exits or aborts. `config_yaml()` is a complete config
// that `--config` reads back to the same values.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/callbacks/save_config_callback.h"
#include "fulgur/cli/component_list.h"
#include "fulgur/cli/option_schema.h"
#include "fulgur/trainer_options.h"

namespace fulgur {

struct LightningCLIOptions {
  std::string program = "fulgur";
  std::string description;
  std::vector<std::string> subcommands = {"fit", "validate", "test", "predict"};
  // Defaults of the trainer.* keys (shown by --help and --print_config).
  TrainerOptions trainer_defaults;
  // Default of `seed_everything`; null = do not seed.
  std::optional<uint64_t> seed_everything = 42;
  // Lightning's save_config_callback: each run but a fast_dev_run saves its resolved config
  // to <log_dir>/config.yaml through a SaveConfigCallback (false = Lightning's None).
  bool save_config_callback = true;
  SaveConfigCallbackOptions save_config_kwargs;
};

enum class CLIAction {
  Run,          // run subcommand() with the parsed options
  PrintHelp,    // --help was given: print help() and exit 0
  PrintConfig,  // --print_config was given: print config_yaml() and exit 0
};

class LightningCLI {
 public:
  explicit LightningCLI(LightningCLIOptions options = {});
  // The schema holds references into this object.
  LightningCLI(const LightningCLI&) = delete;
  LightningCLI& operator=(const LightningCLI&) = delete;

  // Binds a program option (`model.lr`, `data.batch_size`) to `field`, which must outlive the
  // CLI. The field's current value is its default.
  template <typename T>
  void add_argument(std::string key, T& field, std::string help) {
    schema_.add(std::move(key), field, std::move(help));
    schema_.move_to_end("ckpt_path");
  }

  // `args` excludes the program name. When the action is Run, builds the chosen callbacks and
  // loggers and, when a seed is set, calls seed_everything, as LightningCLI does before the
  // model and data are built. Each parse starts the callback and logger lists afresh.
  CLIAction parse(const std::vector<std::string>& args);
  CLIAction parse(int argc, const char* const* argv);

  const std::string& subcommand() const { return subcommand_; }
  TrainerOptions& trainer_options() { return trainer_options_; }
  const TrainerOptions& trainer_options() const { return trainer_options_; }
  std::optional<uint64_t> seed_everything() const { return seed_; }
  const std::optional<std::string>& ckpt_path() const { return ckpt_path_; }
  const std::vector<std::string>& config_files() const { return config_files_; }
  OptionSchema& schema() { return schema_; }
  const OptionSchema& schema() const { return schema_; }
  // The classes chosen under trainer.callbacks / trainer.logger, with their init args.
  const ComponentList& callbacks() const { return callbacks_; }
  const ComponentList& loggers() const { return loggers_; }

  std::string help() const;
  // The resolved configuration (all keys, current values) as YAML.
  std::string config_yaml() const;

 private:
  void check_subcommand(const std::string& word) const;
  bool is_subcommand(const std::string& word) const;
  // trainer_defaults' callbacks and logger, with the chosen ones built into them.
  void build_components();

  LightningCLIOptions options_;
  TrainerOptions trainer_options_;
  std::optional<uint64_t> seed_;
  std::optional<std::string> ckpt_path_;
  std::string subcommand_;
  std::vector<std::string> config_files_;
  // Before schema_, which points into them.
  ComponentList loggers_;
  ComponentList callbacks_;
  OptionSchema schema_;
};

}  // namespace fulgur
