#include "fulgur/optim/reduce_lr_on_plateau.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

struct Problem {
  std::string setting;  // "factor=1"
  std::string why;
};

// Param groups added after the scheduler was made (a finetuning callback's) get the min_lr all
// the others share, as PyTorch's does for a min_lr given as one number; false when the groups
// have different ones, so no value is right for the new groups.
bool extend_min_lrs(std::vector<double>& min_lrs, size_t groups) {
  if (min_lrs.size() >= groups) return true;
  if (std::adjacent_find(min_lrs.begin(), min_lrs.end(), std::not_equal_to<>()) != min_lrs.end()) {
    return false;
  }
  min_lrs.resize(groups, min_lrs.empty() ? 0.0 : min_lrs.front());
  return true;
}

// The first setting ReduceLROnPlateau rejects, if any.
std::optional<Problem> find_problem(const ReduceLROnPlateauOptions& o, size_t groups) {
  if (o.mode != "min" && o.mode != "max") {
    return Problem{fmt::format("mode=\"{}\"", o.mode), "mode must be \"min\" or \"max\""};
  }
  if (o.threshold_mode != "rel" && o.threshold_mode != "abs") {
    return Problem{fmt::format("threshold_mode=\"{}\"", o.threshold_mode),
                   "threshold_mode must be \"rel\" or \"abs\""};
  }
  if (!(o.factor >= 0.0 && o.factor < 1.0)) {
    return Problem{fmt::format("factor={}", o.factor),
                   "factor must be in [0, 1) (the reduced rate is rate * factor)"};
  }
  if (o.patience < 0) {
    return Problem{fmt::format("patience={}", o.patience),
                   "patience must be at least 0 (the periods without improvement tolerated "
                   "before the rate is reduced)"};
  }
  if (o.cooldown < 0) {
    return Problem{fmt::format("cooldown={}", o.cooldown),
                   "cooldown must be at least 0 (the periods to wait after a reduction)"};
  }
  if (o.min_lr.size() != 1 && o.min_lr.size() != groups) {
    return Problem{fmt::format("min_lr with {} values", o.min_lr.size()),
                   fmt::format("the optimizer has {} param groups; give one min_lr for all "
                               "groups or one per group",
                               groups)};
  }
  return std::nullopt;
}

}  // namespace

ReduceLROnPlateau::ReduceLROnPlateau(torch::optim::Optimizer& optimizer,
                                     ReduceLROnPlateauOptions options)
    : LRScheduler(optimizer), options_(std::move(options)) {
  const size_t groups = optimizer.param_groups().size();
  if (auto problem = find_problem(options_, groups)) {
    throw ConfigError(fmt::format("ReduceLROnPlateau({}): {}", problem->setting, problem->why));
  }
  if (options_.min_lr.size() == 1) options_.min_lr.resize(groups, options_.min_lr[0]);
  counters_.best = mode_worse();
}

double ReduceLROnPlateau::mode_worse() const {
  const double inf = std::numeric_limits<double>::infinity();
  return options_.mode == "min" ? inf : -inf;
}

bool ReduceLROnPlateau::is_better(double value) const {
  // PyTorch's is_better, in its order of operations.
  const double best = counters_.best;
  const double threshold = options_.threshold;
  if (options_.mode == "min") {
    return options_.threshold_mode == "rel" ? value < best * (1. - threshold)
                                            : value < best - threshold;
  }
  return options_.threshold_mode == "rel" ? value > best * (threshold + 1.)
                                          : value > best + threshold;
}

std::vector<double> ReduceLROnPlateau::compute_lrs(std::optional<double> metric) {
  // LRScheduler::step() has checked that the metric is there.
  const size_t groups = optimizer_.param_groups().size();
  if (!extend_min_lrs(options_.min_lr, groups)) {
    throw ConfigError(fmt::format(
        "ReduceLROnPlateau: the optimizer has {} param groups but min_lr has {} different values "
        "(a param group was added after the scheduler was made); give one min_lr for all groups",
        groups, options_.min_lr.size()));
  }
  if (is_better(*metric)) {
    counters_.best = *metric;
    counters_.num_bad_epochs = 0;
  } else {
    ++counters_.num_bad_epochs;
  }
  if (counters_.cooldown_counter > 0) {
    --counters_.cooldown_counter;
    counters_.num_bad_epochs = 0;  // bad periods in the cooldown do not count
  }
  std::vector<double> lrs = current_lrs();
  if (counters_.num_bad_epochs > options_.patience) {
    for (size_t g = 0; g < lrs.size(); ++g) {
      const double reduced = std::max(lrs[g] * options_.factor, options_.min_lr[g]);
      if (lrs[g] - reduced > options_.eps) lrs[g] = reduced;
    }
    counters_.cooldown_counter = options_.cooldown;
    counters_.num_bad_epochs = 0;
  }
  return lrs;
}

void ReduceLROnPlateau::save_settings(c10::impl::GenericDict& state) const {
  state.insert("factor", options_.factor);
  state.insert("patience", options_.patience);
  state.insert("cooldown", options_.cooldown);
  state.insert("threshold", options_.threshold);
  state.insert("eps", options_.eps);
}

void ReduceLROnPlateau::load_settings(const c10::impl::GenericDict& /*state*/) {
  // Loaded with the rest in load_extra_state, after one check of them all.
}

void ReduceLROnPlateau::save_extra_state(c10::impl::GenericDict& state) const {
  c10::List<double> min_lrs;
  for (double v : options_.min_lr) min_lrs.push_back(v);
  state.insert("min_lrs", min_lrs);
  state.insert("mode", options_.mode);
  state.insert("threshold_mode", options_.threshold_mode);
  state.insert("best", counters_.best);
  state.insert("num_bad_epochs", counters_.num_bad_epochs);
  state.insert("cooldown_counter", counters_.cooldown_counter);
  state.insert("mode_worse", mode_worse());
}

std::pair<ReduceLROnPlateauOptions, ReduceLROnPlateau::Counters> ReduceLROnPlateau::parse_saved(
    const c10::impl::GenericDict& state, const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  const size_t groups = optimizer_.param_groups().size();
  ReduceLROnPlateauOptions o;
  o.mode = reader.choice("mode", {"min", "max"});
  o.threshold_mode = reader.choice("threshold_mode", {"rel", "abs"});
  o.factor = reader.number("factor");
  o.patience = static_cast<int64_t>(reader.number("patience"));
  o.threshold = reader.number("threshold");
  o.cooldown = static_cast<int64_t>(reader.number("cooldown"));
  o.eps = reader.number("eps");
  o.min_lr = reader.numbers("min_lrs", std::min(reader.list("min_lrs").size(), groups));
  if (!extend_min_lrs(o.min_lr, groups)) {
    reader.fail(fmt::format("has {} different values in \"min_lrs\" for an optimizer with {} "
                            "param groups",
                            o.min_lr.size(), groups));
  }
  if (auto problem = find_problem(o, groups)) {
    reader.fail(
        fmt::format("has {}, which ReduceLROnPlateau rejects: {}", problem->setting, problem->why));
  }
  Counters counters{reader.number("best"), reader.integer("num_bad_epochs"),
                    reader.integer("cooldown_counter")};
  return {std::move(o), counters};
}

void ReduceLROnPlateau::check_extra_state(const c10::impl::GenericDict& state,
                                          const std::string& source) const {
  parse_saved(state, source);
}

void ReduceLROnPlateau::load_extra_state(const c10::impl::GenericDict& state) {
  std::tie(options_, counters_) = parse_saved(state, "");
}

}  // namespace fulgur
