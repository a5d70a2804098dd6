#include "fulgur/load_from_checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <vector>

#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/loggers/hparams_yaml.h"
#include "fulgur/warnings.h"

namespace fulgur {

CheckpointDict read_model_checkpoint(const std::string& path) {
  CheckpointDict checkpoint = TorchCheckpointIO().load_checkpoint(path);
  if (!checkpoint.contains("state_dict") || !checkpoint.at("state_dict").isGenericDict()) {
    throw CheckpointError(path + " is not a model checkpoint: it has no \"state_dict\"");
  }
  return checkpoint;
}

HParams checkpoint_hparams(const CheckpointDict& checkpoint,
                           const LoadFromCheckpointOptions& options, const std::string& path) {
  HParams hparams;
  if (checkpoint.contains("hyper_parameters") && !checkpoint.at("hyper_parameters").isNone()) {
    const c10::IValue& saved = checkpoint.at("hyper_parameters");
    if (!saved.isGenericDict()) {
      throw CheckpointError(
          fmt::format("{}: \"hyper_parameters\" is a {}, not a dict", path, saved.tagKind()));
    }
    for (const auto& entry : saved.toGenericDict()) {
      const std::string key = entry.key().isString() ? entry.key().toStringRef() : "";
      const c10::IValue& value = entry.value();
      if (key.empty()) {
        throw CheckpointError(
            fmt::format("{}: \"hyper_parameters\" has a key that is not a string", path));
      }
      if (value.isBool()) {
        hparams[key] = value.toBool();
      } else if (value.isInt()) {
        hparams[key] = value.toInt();
      } else if (value.isDouble()) {
        hparams[key] = value.toDouble();
      } else if (value.isString()) {
        hparams[key] = value.toStringRef();
      } else {
        throw CheckpointError(
            fmt::format("{}: hyper_parameters[\"{}\"] is a {}, not a bool, int, float or str", path,
                        key, value.tagKind()));
      }
    }
  }
  if (!options.hparams_file.empty()) {
    const std::string extension = std::filesystem::path(options.hparams_file).extension();
    if (extension != ".yaml" && extension != ".yml") {
      throw ConfigError(fmt::format("a .yml or .yaml file is required for `hparams_file`, got {}",
                                    options.hparams_file));
    }
    for (const auto& [key, value] : read_hparams_yaml(options.hparams_file)) hparams[key] = value;
  }
  for (const auto& [key, value] : options.hparams) hparams[key] = value;
  return hparams;
}

void restore_from_checkpoint(Module& module, const CheckpointDict& checkpoint,
                             const LoadFromCheckpointOptions& options, const std::string& path) {
  // strict_loading is true unless the Module said otherwise, so only a false one can conflict.
  if (options.strict.value_or(false) && !module.strict_loading()) {
    throw ConfigError(
        fmt::format("You set `load_from_checkpoint(..., strict=true)` which is in conflict with "
                    "`{}.strict_loading=false`. Please set the same value for both of them.",
                    module.name()));
  }
  const bool strict = options.strict.value_or(module.strict_loading());
  module.configure_model();
  // As Lightning: the Module may migrate an old checkpoint before its weights are read.
  module.on_load_checkpoint(checkpoint);
  const auto state = checkpoint.at("state_dict").toGenericDict();
  CheckpointConnector::load_module_state_dict(module, state, strict, path);
  if (!strict) {
    // Lightning's warnings, with the names as Python prints a list of them.
    auto quoted = [](const std::vector<std::string>& names) {
      std::vector<std::string> items;
      for (const auto& name : names) items.push_back(fmt::format("'{}'", name));
      return fmt::format("[{}]", fmt::join(items, ", "));
    };
    const auto [missing, unexpected] = CheckpointConnector::key_differences(module, state);
    if (!missing.empty()) {
      warn("Found keys that are in the model state dict but not in the checkpoint: " +
           quoted(missing));
    }
    if (!unexpected.empty()) {
      warn("Found keys that are not in the model state dict but in the checkpoint: " +
           quoted(unexpected));
    }
  }
  if (options.map_location) module.to(*options.map_location);
}

}  // namespace fulgur
