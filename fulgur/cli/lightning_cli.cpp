#include "fulgur/cli/lightning_cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fulgur/callbacks/save_config_callback.h"
#include "fulgur/cli/callback_registry.h"
#include "fulgur/cli/logger_registry.h"
#include "fulgur/cli/suggest.h"
#include "fulgur/cli/trainer_options_schema.h"
#include "fulgur/errors.h"
#include "fulgur/version.h"
#include "fulgur/seed.h"

namespace fulgur {
namespace {

const char* subcommand_help(const std::string& name) {
  if (name == "fit") return "train the model, validating as configured";
  if (name == "validate") return "run one evaluation epoch on the validation set";
  if (name == "test") return "run one evaluation epoch on the test set";
  if (name == "predict") return "run inference on the prediction set";
  return "";
}

std::string read_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(fmt::format("cannot read config file {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(fmt::format("cannot read config file {}", path));
  return text.str();
}

struct KeyValue {
  std::string key;
  OptionText value;
};

// A type that takes a bool and no number: the key given alone means true (`--trainer.logger`).
bool stands_alone(const std::string& type) {
  return type.starts_with("bool") && type.find("int") == std::string::npos;
}

bool is_bool_word(const std::string& text) {
  try {
    parse_bool_text(text);
    return true;
  } catch (const OptionParseError&) {
    return false;
  }
}

// Builds each entry, naming the entry in the errors its constructor raises.
template <typename T>
std::vector<std::shared_ptr<T>> build_all(const ComponentRegistry<T>& registry,
                                          const ComponentList& list) {
  std::vector<std::shared_ptr<T>> built;
  for (size_t i = 0; i < list.entries().size(); ++i) {
    try {
      built.push_back(registry.build(*list.entries()[i].args));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: {}", list.label(i), e.what()));
    }
  }
  return built;
}

}  // namespace

LightningCLI::LightningCLI(LightningCLIOptions options)
    : options_(std::move(options)),
      trainer_options_(options_.trainer_defaults),
      seed_(options_.seed_everything),
      loggers_({.key = "trainer.logger",
                .accepts_bool = true,
                .default_enabled = options_.trainer_defaults.logger.enabled},
               logger_registry()),
      callbacks_({.key = "trainer.callbacks"}, callback_registry()) {
  schema_.add("seed_everything", seed_,
              "seed torch's generators and the data order before anything is built (null: no "
              "seeding)");
  add_trainer_options(schema_, trainer_options_, "trainer",
                      {.loggers = &loggers_, .callbacks = &callbacks_});
  schema_.add("ckpt_path", ckpt_path_,
              "checkpoint to resume fit from, or whose weights validate/test/predict use ("
              "best/last after a fit in this process)");
}

void LightningCLI::check_subcommand(const std::string& word) const {
  const auto& known = options_.subcommands;
  if (std::find(known.begin(), known.end(), word) != known.end()) return;
  const std::string nearest = closest_match(word, known);
  if (!nearest.empty()) {
    throw ConfigError(fmt::format("unknown subcommand '{}'; did you mean {}?", word, nearest));
  }
  throw ConfigError(
      fmt::format("unknown subcommand '{}'; choose one of {}", word, fmt::join(known, ", ")));
}

bool LightningCLI::is_subcommand(const std::string& word) const {
  const auto& known = options_.subcommands;
  return std::find(known.begin(), known.end(), word) != known.end();
}

void LightningCLI::build_components() {
  const TrainerOptions& defaults = options_.trainer_defaults;
  auto callbacks = defaults.callbacks;
  for (auto& callback : build_all(callback_registry(), callbacks_)) {
    callbacks.push_back(std::move(callback));
  }
  // As LightningCLI: every run but a fast_dev_run saves what it was configured with.
  if (options_.save_config_callback && trainer_options_.fast_dev_run.batches == 0) {
    callbacks.push_back(
        std::make_shared<SaveConfigCallback>(config_yaml(), options_.save_config_kwargs));
  }
  LoggerFlag logger = defaults.logger;
  if (!loggers_.entries().empty()) {
    logger = LoggerFlag(build_all(logger_registry(), loggers_));
  } else if (!loggers_.enabled()) {
    logger = LoggerFlag(false);
  } else if (!defaults.logger.enabled) {
    logger = LoggerFlag(true);
  }
  trainer_options_.callbacks = std::move(callbacks);
  trainer_options_.logger = std::move(logger);
}

CLIAction LightningCLI::parse(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse(args);
}

CLIAction LightningCLI::parse(const std::vector<std::string>& args) {
  // Help wins over everything, even over mistakes elsewhere on the line.
  for (const auto& arg : args) {
    if (arg == "-h" || arg == "--help") return CLIAction::PrintHelp;
  }

  bool print_config = false;
  std::vector<std::string> configs;
  std::vector<KeyValue> assignments;
  subcommand_.clear();
  loggers_.reset();
  callbacks_.reset();

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--print_config") {
      print_config = true;
      continue;
    }
    if (arg == "--config" || arg.starts_with("--config=")) {
      if (arg == "--config") {
        if (i + 1 >= args.size()) {
          throw ConfigError("option --config needs a value: the path of a YAML file");
        }
        configs.push_back(args[++i]);
      } else {
        configs.push_back(arg.substr(std::strlen("--config=")));
      }
      continue;
    }
    if (arg.starts_with("--") && arg.size() > 2) {
      const size_t equals = arg.find('=');
      const std::string key =
          arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
      const OptionSpec* option = schema_.find(key);
      if (option == nullptr && !schema_.accepts(key)) {
        schema_.set(key, std::nullopt);  // raises the unknown-key error with its suggestion
      }
      if (equals != std::string::npos) {
        assignments.push_back({key, arg.substr(equals + 1)});
        continue;
      }
      const bool has_next = i + 1 < args.size();
      const bool next_is_option =
          has_next && args[i + 1].starts_with("--") && args[i + 1].size() > 2;
      if (option == nullptr) {
        // `--trainer.callbacks+ NAME`, `--trainer.callbacks.patience 5`.
        if (!has_next || next_is_option) {
          throw ConfigError(fmt::format("option --{} needs a value; write --{}=VALUE", key, key));
        }
        assignments.push_back({key, args[++i]});
        continue;
      }
      if (stands_alone(option->type)) {
        // `--trainer.logger` alone means true; `--trainer.logger false` takes the word, and
        // `--trainer.logger CSVLogger` the class name (unless the word is a subcommand).
        bool take_next = has_next && is_bool_word(args[i + 1]);
        if (has_next && !take_next && option->structured != nullptr) {
          take_next = !args[i + 1].starts_with("-") && !is_subcommand(args[i + 1]);
        }
        assignments.push_back({key, take_next ? args[++i] : std::string("true")});
        continue;
      }
      if (!has_next || next_is_option) {
        throw ConfigError(fmt::format("option --{} needs a value ({}); write --{}=VALUE", key,
                                      option->type, key));
      }
      assignments.push_back({key, args[++i]});
      continue;
    }
    if (arg.starts_with("-")) {
      throw ConfigError(fmt::format("unknown option {}; options are written --key=value", arg));
    }
    if (subcommand_.empty()) {
      check_subcommand(arg);
      subcommand_ = arg;
      continue;
    }
    throw ConfigError(
        fmt::format("unexpected argument '{}' after subcommand {}; options are "
                    "written --key=value",
                    arg, subcommand_));
  }

  if (subcommand_.empty() && !print_config) {
    throw ConfigError(fmt::format("missing subcommand; choose one of {} (e.g. `{} {}`)",
                                  fmt::join(options_.subcommands, ", "), options_.program,
                                  options_.subcommands.empty() ? "" : options_.subcommands[0]));
  }

  for (const auto& path : configs) {
    schema_.set_from_yaml(read_config_file(path), "config " + path);
  }
  for (const auto& assignment : assignments) {
    // On the command line, null/None mean "no value", as in LightningCLI.
    OptionText value = assignment.value;
    if (value && is_null_word(*value)) value = std::nullopt;
    schema_.set(assignment.key, value);
  }
  config_files_ = configs;
  trainer_options_.seed = seed_;

  // As in LightningCLI, printing the configuration builds nothing.
  if (print_config) return CLIAction::PrintConfig;
  build_components();
  if (seed_) ::fulgur::seed_everything(*seed_);  // the free function, not the getter
  return CLIAction::Run;
}

std::string LightningCLI::help() const {
  std::string text =
      fmt::format("usage: {} {{{}}} [--config FILE.yaml] [--print_config] [--KEY=VALUE ...]\n",
                  options_.program, fmt::join(options_.subcommands, ","));
  if (!options_.description.empty()) text += "\n" + options_.description + "\n";
  text += "\nsubcommands:\n";
  for (const auto& name : options_.subcommands) {
    text += fmt::format("  {:<10}  {}\n", name, subcommand_help(name));
  }
  text +=
      "\noptions:\n"
      "  -h, --help            show this help and exit\n"
      "  --config FILE.yaml    read options from a YAML file (trainer: {max_epochs: 3}, model: "
      "...);"
      "\n                        several are applied in order; command-line keys win\n"
      "  --print_config        print the resolved configuration as YAML and exit\n"
      "\nkeys (--KEY=VALUE or --KEY VALUE; null = unset):\n";
  text += schema_.help_table();
  text +=
      "\ncallbacks (--trainer.callbacks+=NAME adds one, --trainer.callbacks.KEY=VALUE sets an init "
      "arg\nof the last one; in a config file, trainer.callbacks: [{class_path: NAME, init_args: "
      "{KEY: VALUE}}]):\n";
  text += callbacks_.catalog_help();
  text +=
      "\nloggers (--trainer.logger=NAME chooses one, --trainer.logger+=NAME adds another,\n"
      "--trainer.logger.KEY=VALUE sets an init arg of the last one; in a config file,\n"
      "trainer.logger: {class_path: NAME, init_args: {KEY: VALUE}} or a list of them):\n";
  text += loggers_.catalog_help();
  return text;
}

std::string LightningCLI::config_yaml() const {
  return fmt::format("# fulgur=={}\n{}", version(), schema_.to_yaml());
}

}  // namespace fulgur
