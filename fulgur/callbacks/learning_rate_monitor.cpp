#include "fulgur/callbacks/learning_rate_monitor.h"

#include <algorithm>
#include <map>

#include <c10/util/Type.h>
#include <fmt/format.h>
#include <torch/optim.h>

#include "fulgur/connectors/logger_connector.h"
#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/optim/optimizer_config.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

// "torch::optim::SGD" → "SGD", as Python's __class__.__name__.
std::string class_name(const torch::optim::Optimizer& optimizer) {
  const std::string full = c10::demangle(typeid(optimizer).name());
  const auto colon = full.rfind("::");
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

std::optional<double> momentum_of(const torch::optim::OptimizerOptions& options) {
  if (auto* o = dynamic_cast<const torch::optim::SGDOptions*>(&options)) return o->momentum();
  if (auto* o = dynamic_cast<const torch::optim::RMSpropOptions*>(&options)) return o->momentum();
  if (auto* o = dynamic_cast<const torch::optim::AdamOptions*>(&options)) {
    return std::get<0>(o->betas());
  }
  if (auto* o = dynamic_cast<const torch::optim::AdamWOptions*>(&options)) {
    return std::get<0>(o->betas());
  }
  return std::nullopt;
}

bool has_momentum_default(const torch::optim::OptimizerOptions& options) {
  return dynamic_cast<const torch::optim::SGDOptions*>(&options) != nullptr ||
         dynamic_cast<const torch::optim::RMSpropOptions*>(&options) != nullptr;
}

bool has_betas_default(const torch::optim::OptimizerOptions& options) {
  return dynamic_cast<const torch::optim::AdamOptions*>(&options) != nullptr ||
         dynamic_cast<const torch::optim::AdamWOptions*>(&options) != nullptr;
}

std::optional<double> weight_decay_of(const torch::optim::OptimizerOptions& options) {
  if (auto* o = dynamic_cast<const torch::optim::SGDOptions*>(&options)) return o->weight_decay();
  if (auto* o = dynamic_cast<const torch::optim::RMSpropOptions*>(&options)) {
    return o->weight_decay();
  }
  if (auto* o = dynamic_cast<const torch::optim::AdamOptions*>(&options)) return o->weight_decay();
  if (auto* o = dynamic_cast<const torch::optim::AdamWOptions*>(&options)) return o->weight_decay();
  if (auto* o = dynamic_cast<const torch::optim::AdagradOptions*>(&options)) {
    return o->weight_decay();
  }
  return std::nullopt;
}

}  // namespace

LearningRateMonitor::LearningRateMonitor(LearningRateMonitorOptions options)
    : options_(std::move(options)) {
  if (options_.logging_interval && *options_.logging_interval != "step" &&
      *options_.logging_interval != "epoch") {
    throw ConfigError("logging_interval should be `step` or `epoch` or `None` (unset), got \"" +
                      *options_.logging_interval + "\"");
  }
}

void LearningRateMonitor::on_train_start(Trainer& trainer, Module&) {
  if (trainer.loggers().empty()) {
    throw MisconfigurationError(
        "Cannot use `LearningRateMonitor` callback with `Trainer` that has no logger.");
  }
  tracked_.clear();
  lrs_.clear();
  // Lightning's naming: schedulers first (in their order), then optimizers without one; an
  // unnamed optimizer's class counts towards the "-N" suffix of later ones of that class.
  std::map<std::string, int> seen_classes;
  auto add = [&](torch::optim::Optimizer& optimizer, const std::string& interval,
                 const std::string& configured_name) {
    const std::string cls = class_name(optimizer);
    if (configured_name.empty()) ++seen_classes[cls];
    std::string base = configured_name.empty() ? "lr-" + cls : configured_name;
    const auto seen = seen_classes.find(cls);
    if (seen != seen_classes.end() && seen->second > 1) base += fmt::format("-{}", seen->second - 1);
    tracked_.push_back(Tracked{&optimizer, interval, std::move(base)});
  };
  std::vector<const torch::optim::Optimizer*> scheduled;
  for (const auto& config : trainer.lr_scheduler_configs()) {
    add(config.scheduler->optimizer(), config.interval, config.name);
    scheduled.push_back(&config.scheduler->optimizer());
  }
  for (const auto& optimizer : trainer.optimizers()) {
    auto& inner = optimizer->optimizer();
    if (std::find(scheduled.begin(), scheduled.end(), &inner) == scheduled.end()) add(inner, "", "");
  }
  // Lightning's check, on the optimizers with a scheduler when there are any: some lack
  // torch.optim's "momentum" default (SGD, RMSprop) and some lack "betas" (Adam, AdamW).
  if (options_.log_momentum) {
    std::vector<const torch::optim::Optimizer*> checked(scheduled.begin(), scheduled.end());
    if (checked.empty()) {
      for (const auto& optimizer : trainer.optimizers()) checked.push_back(&optimizer->optimizer());
    }
    auto some_lack = [&](bool (*has)(const torch::optim::OptimizerOptions&)) {
      return std::any_of(checked.begin(), checked.end(),
                         [&](const auto* o) { return !has(o->defaults()); });
    };
    if (some_lack(has_momentum_default) && some_lack(has_betas_default)) {
      warn("You have set log_momentum=True, but some optimizers do not have momentum. This will "
           "log a value 0 for the momentum.");
    }
  }
  for (const auto& name : names()) {
    if (!name.ends_with("-momentum") && !name.ends_with("-weight_decay")) lrs_[name];
  }
}

std::vector<std::string> LearningRateMonitor::Tracked::names() const {
  const size_t groups = optimizer->param_groups().size();
  if (groups == 1) return {base};
  std::vector<std::string> out;
  for (size_t i = 0; i < groups; ++i) out.push_back(fmt::format("{}/pg{}", base, i + 1));
  return out;
}

std::vector<std::string> LearningRateMonitor::names() const {
  std::vector<std::string> out;
  for (const auto& t : tracked_) {
    for (const auto& name : t.names()) {
      out.push_back(name);
      if (options_.log_momentum) out.push_back(name + "-momentum");
      if (options_.log_weight_decay) out.push_back(name + "-weight_decay");
    }
  }
  return out;
}

void LearningRateMonitor::on_train_batch_start(Trainer& trainer, Module&, Batch&, int64_t) {
  if (options_.logging_interval == "epoch") return;
  if (!trainer.logger_connector().should_update_logs()) return;
  write(trainer, options_.logging_interval ? "any" : "step");
}

void LearningRateMonitor::on_train_epoch_start(Trainer& trainer, Module&) {
  if (options_.logging_interval == "step") return;
  write(trainer, options_.logging_interval ? "any" : "epoch");
}

void LearningRateMonitor::write(Trainer& trainer, const std::string& moment) {
  std::map<std::string, double> stats;
  for (const auto& t : tracked_) {
    // Optimizers without a scheduler are written at every moment, as in Lightning.
    if (moment != "any" && !t.interval.empty() && t.interval != moment) continue;
    auto& groups = t.optimizer->param_groups();
    const auto names = t.names();
    for (size_t i = 0; i < groups.size(); ++i) {
      const auto& options = groups[i].options();
      const auto& name = names[i];
      stats[name] = options.get_lr();
      lrs_[name].push_back(options.get_lr());
      if (options_.log_momentum) stats[name + "-momentum"] = momentum_of(options).value_or(0.0);
      if (options_.log_weight_decay) {
        stats[name + "-weight_decay"] = weight_decay_of(options).value_or(0.0);
      }
    }
  }
  if (stats.empty()) return;
  for (const auto& [name, value] : stats) trainer.logger_connector().set_callback_metric(name, value);
  if (!trainer.is_global_zero()) return;
  for (const auto& logger : trainer.loggers()) {
    logger->log_metrics(stats, trainer.batches_that_stepped());
  }
}

}  // namespace fulgur
