#include "fulgur/optim/optimizer_config.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/optim/one_cycle_lr.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

void check_automatic(const SchedulerConfig& sc) {
  if (sc.interval != "step" && sc.interval != "epoch") {
    throw MisconfigurationError(fmt::format(
        "The \"interval\" of a scheduler config must be \"step\" or \"epoch\", not \"{}\"",
        sc.interval));
  }
  if (sc.frequency < 1) {
    throw MisconfigurationError(
        fmt::format("The \"frequency\" of a scheduler config must be >= 1, not {}", sc.frequency));
  }
  if (sc.scheduler->needs_metric() && sc.monitor.empty()) {
    throw MisconfigurationError(fmt::format(
        "The scheduler config of {} must include a monitor, e.g. {{.scheduler = s, .monitor = "
        "\"val_loss\"}}",
        sc.scheduler->name()));
  }
  if (dynamic_cast<const OneCycleLR*>(sc.scheduler.get()) != nullptr && sc.interval == "epoch") {
    warn("A OneCycleLR scheduler is using interval \"epoch\". Are you sure you didn't mean "
         "interval \"step\"?");
  }
}

// Lightning's _configure_schedulers_manual_opt: the keys that steer automatic stepping go.
SchedulerConfig without_automatic_keys(SchedulerConfig sc) {
  std::vector<std::string> ignored;
  if (!sc.monitor.empty()) ignored.push_back("'monitor'");
  if (!sc.strict) ignored.push_back("'strict'");
  if (!ignored.empty()) {
    warn(fmt::format("The scheduler config of {} sets [{}], which manual optimization ignores: "
                     "call the scheduler's step() in training_step yourself",
                     sc.scheduler->name(), fmt::join(ignored, ", ")));
  }
  sc.monitor.clear();
  sc.strict = true;
  return sc;
}

}  // namespace

std::vector<SchedulerConfig> checked_scheduler_configs(const OptimizerConfig& config,
                                                       bool automatic_optimization) {
  std::vector<SchedulerConfig> out;
  for (const auto& sc : config.schedulers) {
    if (!sc.scheduler) throw MisconfigurationError("a scheduler config has no scheduler");
    const bool attached = std::any_of(
        config.optimizers.begin(), config.optimizers.end(),
        [&](const auto& optimizer) { return optimizer.get() == &sc.scheduler->optimizer(); });
    if (!attached) {
      throw MisconfigurationError(fmt::format(
          "{} is attached to an optimizer that configure_optimizers() did not return",
          sc.scheduler->name()));
    }
    if (automatic_optimization) {
      check_automatic(sc);
      out.push_back(sc);
    } else {
      out.push_back(without_automatic_keys(sc));
    }
  }
  return out;
}

}  // namespace fulgur
