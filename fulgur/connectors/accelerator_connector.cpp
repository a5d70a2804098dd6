#include "fulgur/connectors/accelerator_connector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/accelerators/accelerator_registry.h"
#include "fulgur/accelerators/device_parser.h"
#include "fulgur/compat/autocast_scope.h"
#include "fulgur/compat/cuda_device.h"
#include "fulgur/environments/environment_detection.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/layer_sync/torch_sync_batch_norm.h"
#include "fulgur/precision/half_precision.h"
#include "fulgur/precision/mixed_precision.h"
#include "fulgur/precision/precision_registry.h"
#include "fulgur/strategies/parallel_strategy.h"
#include "fulgur/strategies/single_device_strategy.h"
#include "fulgur/strategies/strategy_registry.h"

namespace fulgur {
namespace {

// The flag as the user wrote it, for messages: `"cpu"` or `<Strategy instance "ddp">`.
template <typename T>
std::string flag_text(const NamedOrInstance<T>& flag, const char* kind) {
  if (flag.instance) return fmt::format("<{} instance \"{}\">", kind, flag.instance->name());
  return "\"" + flag.name + "\"";
}

std::string name_or_auto(const std::string& name) { return name.empty() ? "auto" : name; }

// The one plugin of type T in `plugins`, null when none; two are a conflict.
template <typename T>
std::shared_ptr<T> single_plugin(const std::vector<Plugin>& plugins, const char* kind) {
  std::vector<std::shared_ptr<T>> found;
  for (const auto& plugin : plugins) {
    if (const auto* p = std::get_if<std::shared_ptr<T>>(&plugin); p != nullptr && *p) {
      found.push_back(*p);
    }
  }
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const auto& p : found) names.push_back("\"" + p->name() + "\"");
    throw ConfigError(fmt::format("plugins holds {} {} plugins ({}); give at most one",
                                  found.size(), kind, fmt::join(names, ", ")));
  }
  return found.empty() ? nullptr : found.front();
}

ConfigError set_twice(const std::string& flag, const char* part, const std::string& existing) {
  return ConfigError(fmt::format(
      "{} was given, but the strategy instance already has {} (\"{}\"); set it in one place "
      "only: either on the strategy or through the flag/plugins",
      flag, part, existing));
}

// The accelerator a strategy's own devices imply ("cpu", "cuda"), or "" when they imply none.
std::string accelerator_for_devices(const std::vector<c10::Device>& devices) {
  if (devices.empty()) return "";
  if (devices.front().is_cpu()) return "cpu";
  if (devices.front().is_cuda()) return "cuda";
  return "";
}

// Autocast applies to the accelerator's device; a precision the device cannot compute in is a
// ConfigError now rather than a LibTorch error at the first step.
void fit_precision_to_device(Precision& precision, c10::DeviceType device) {
  if (auto* mixed = dynamic_cast<MixedPrecision*>(&precision)) mixed->set_device_type(device);
  const auto* half = dynamic_cast<const HalfPrecision*>(&precision);
  if (half && half->dtype() == torch::kHalf && device == c10::kCPU &&
      !compat::cpu_computes_float16()) {
    throw ConfigError(
        "precision=\"16-true\" needs float16 matrix products and convolutions on the CPU, which "
        "this LibTorch lacks (they came in 2.1); use \"bf16-true\" or \"bf16-mixed\"");
  }
}

std::string unavailable_reason(const std::string& name) {
  if (name != "cuda") return name + " is not available on this machine";
  if (!compat::built_with_cuda()) {
    return "CUDA is not available: this build of fulgur uses a LibTorch without CUDA";
  }
  return "CUDA is not available on this machine (torch::cuda::is_available() is false)";
}

}  // namespace

AcceleratorConnector::AcceleratorConnector(ConnectorOptions options) {
  auto& accelerators = accelerator_registry();
  auto& strategies = strategy_registry();
  auto& precisions = precision_registry();

  // ---- plugins: at most one of each kind ----
  auto precision_plugin = single_plugin<Precision>(options.plugins, "Precision");
  auto checkpoint_plugin = single_plugin<CheckpointIO>(options.plugins, "CheckpointIO");
  auto environment_plugin =
      single_plugin<ClusterEnvironment>(options.plugins, "ClusterEnvironment");

  // ---- strategy flag: a known name or an instance ----
  const std::string strategy_flag =
      options.strategy.instance ? "" : name_or_auto(options.strategy.name);
  const std::string strategy_text = options.strategy.instance
                                        ? flag_text(options.strategy, "Strategy")
                                        : "\"" + strategy_flag + "\"";
  if (options.strategy.instance) {
    strategy_ = options.strategy.instance;
  } else if (strategy_flag != "auto") {
    strategy_ = strategies.create(strategy_flag, {"auto"});
  }

  // ---- accelerator flag: "auto", a known name or an instance ----
  const std::string accelerator_flag =
      options.accelerator.instance ? "" : name_or_auto(options.accelerator.name);
  const std::string accelerator_text = options.accelerator.instance
                                           ? flag_text(options.accelerator, "Accelerator")
                                           : "\"" + accelerator_flag + "\"";
  if (!options.accelerator.instance && accelerator_flag != "auto" &&
      !accelerators.contains(accelerator_flag)) {
    throw accelerators.unknown(accelerator_flag, {"auto"});
  }

  // ---- precision: a name, an instance, or a plugin, but only one of them ----
  std::shared_ptr<Precision> precision;
  if (options.precision.instance) {
    precision = options.precision.instance;
  } else if (!options.precision.name.empty()) {
    precision = precisions.create(options.precision.name);
  }
  if (precision && precision_plugin) {
    throw ConfigError(fmt::format(
        "Received both precision={} and a Precision plugin (\"{}\") in plugins; choose one",
        flag_text(options.precision, "Precision"), precision_plugin->name()));
  }
  if (precision_plugin) precision = precision_plugin;

  // ---- a strategy instance may bring its own parts; the flags must not contradict them ----
  std::shared_ptr<Accelerator> accelerator = options.accelerator.instance;
  std::string accelerator_name = accelerator_flag;
  if (strategy_ && strategy_->accelerator()) {
    if (accelerator || accelerator_flag != "auto") {
      throw set_twice("accelerator=" + accelerator_text, "an accelerator",
                      strategy_->accelerator()->name());
    }
    accelerator = strategy_->accelerator();
  }
  if (strategy_ && strategy_->precision() && precision) {
    const std::string given = precision_plugin
                                  ? "plugins=[Precision \"" + precision_plugin->name() + "\"]"
                                  : "precision=" + flag_text(options.precision, "Precision");
    throw set_twice(given, "a precision plugin", strategy_->precision()->name());
  }
  if (strategy_ && strategy_->checkpoint_io() && checkpoint_plugin) {
    throw set_twice("plugins=[CheckpointIO \"" + checkpoint_plugin->name() + "\"]",
                    "a checkpoint IO", strategy_->checkpoint_io()->name());
  }
  if (strategy_ && strategy_->cluster_environment() && environment_plugin) {
    throw set_twice("plugins=[ClusterEnvironment \"" + environment_plugin->name() + "\"]",
                    "a cluster environment", strategy_->cluster_environment()->name());
  }
  const std::vector<c10::Device> strategy_devices =
      strategy_ ? strategy_->parallel_devices() : std::vector<c10::Device>{};
  if (!accelerator) {
    const auto implied = accelerator_for_devices(strategy_devices);
    if (!implied.empty()) {
      if (accelerator_flag == "auto") {
        accelerator_name = implied;
      } else if (accelerators.canonical_name(accelerator_flag) != implied) {
        throw ConfigError(fmt::format(
            "accelerator={} does not match the strategy instance's devices ({}, which need "
            "accelerator=\"{}\"); use accelerator=\"{}\" or \"auto\"",
            accelerator_text, strategy_devices.front().str(), implied, implied));
      }
    }
  }

  // ---- num_nodes ----
  if (options.num_nodes < 1) {
    throw ConfigError(fmt::format(
        "num_nodes={} is not valid; num_nodes is the number of machines and must be >= 1",
        options.num_nodes));
  }
  num_nodes_ = options.num_nodes;

  // ---- the accelerator: "auto" is CUDA when available, else the CPU ----
  if (!accelerator) {
    if (accelerator_name == "auto") {
      auto cuda = accelerators.create("cuda");
      accelerator = cuda->is_available() ? cuda : accelerators.create("cpu");
    } else {
      accelerator = accelerators.create(accelerator_name);
    }
  }
  if (!accelerator->is_available()) {
    throw ConfigError(fmt::format(
        "accelerator={} was requested, but {}; use accelerator=\"cpu\" or accelerator=\"auto\"",
        accelerator_text, unavailable_reason(accelerator->name())));
  }
  accelerator_name_ = accelerator->name();

  // ---- devices ----
  if (options.devices.is_auto()) {
    const int count = accelerator->auto_device_count();
    if (count < 1) {
      throw ConfigError(
          fmt::format("devices=\"auto\" found no {} devices on this machine; use "
                      "another accelerator",
                      accelerator_name_));
    }
    device_ids_ = accelerator->parse_devices(Devices(count));
  } else {
    device_ids_ = accelerator->parse_devices(options.devices);
  }
  // A strategy that already knows its devices keeps them (Lightning does the same).
  if (!strategy_devices.empty()) {
    device_ids_.clear();
    for (size_t i = 0; i < strategy_devices.size(); ++i) {
      const auto& device = strategy_devices[i];
      device_ids_.push_back(device.has_index() ? device.index() : static_cast<int>(i));
    }
  }
  const size_t processes = device_ids_.size() * static_cast<size_t>(num_nodes_);

  // ---- the strategy: "auto" is one device → single_device, more → ddp ----
  if (!strategy_) {
    const std::string chosen = processes == 1 ? "single_device" : "ddp";
    if (!strategies.contains(chosen)) {
      const std::string why = strategies.is_planned(chosen) ? "is not available in this build "
                                                              "of fulgur yet"
                                                            : "is not registered";
      throw ConfigError(fmt::format(
          "strategy=\"auto\" picks \"{}\" for devices={} (ids {}) with num_nodes={}, but "
          "strategy=\"{}\" {}; use devices=1 and num_nodes=1, or choose one of {}",
          chosen, options.devices.to_string(), format_ids(device_ids_), num_nodes_, chosen, why,
          strategies.allowed_list({"auto"})));
    }
    strategy_ = strategies.create(chosen);
  }
  if (dynamic_cast<SingleDeviceStrategy*>(strategy_.get()) != nullptr && processes != 1) {
    throw ConfigError(fmt::format(
        "strategy={} runs on exactly one device, but devices={} (ids {}) with num_nodes={} asks "
        "for {}; use devices=1 and num_nodes=1, or a multi-device strategy",
        strategy_text, options.devices.to_string(), format_ids(device_ids_), num_nodes_,
        processes));
  }

  // ---- fill in what the strategy lacks ----
  if (!strategy_->accelerator()) strategy_->set_accelerator(accelerator);
  if (!strategy_->precision()) {
    strategy_->set_precision(precision ? precision : precisions.create("32-true"));
  }
  if (!strategy_->checkpoint_io()) {
    strategy_->set_checkpoint_io(checkpoint_plugin ? checkpoint_plugin
                                                   : std::make_shared<TorchCheckpointIO>());
  }
  if (!strategy_->cluster_environment()) {
    strategy_->set_cluster_environment(environment_plugin ? environment_plugin
                                                          : detect_cluster_environment());
  }
  strategy_->cluster_environment()->validate_settings(static_cast<int>(device_ids_.size()),
                                                      num_nodes_);
  if (strategy_->parallel_devices().empty()) {
    strategy_->set_parallel_devices(accelerator->get_parallel_devices(device_ids_));
  }
  strategy_->set_num_nodes(num_nodes_);
  // As Lightning, only a parallel strategy synchronises layers; on one device the flag is moot.
  if (auto* parallel = dynamic_cast<ParallelStrategy*>(strategy_.get());
      parallel != nullptr && options.sync_batchnorm && !parallel->layer_sync()) {
    parallel->set_layer_sync(std::make_shared<TorchSyncBatchNorm>());
  }
  fit_precision_to_device(*strategy_->precision(), strategy_->root_device().type());
  strategy_->configure_launcher();

  strategy_name_ = strategy_->name();
  precision_name_ = strategy_->precision()->name();
}

}  // namespace fulgur
