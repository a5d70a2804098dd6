#include "fulgur/optim/one_cycle_lr.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

OneCycleLR::OneCycleLR(torch::optim::Optimizer& optimizer, double max_lr, int64_t total_steps,
                       OneCycleLROptions options)
    : OneCycleLR(optimizer, std::vector<double>{max_lr}, total_steps, std::move(options)) {}

OneCycleLR::OneCycleLR(torch::optim::Optimizer& optimizer, std::vector<double> max_lrs,
                       int64_t total_steps, OneCycleLROptions options)
    : LRScheduler(optimizer), total_steps_(total_steps), momentum_kind_(momentum_kind(optimizer)) {
  const size_t groups = optimizer.param_groups().size();
  if (total_steps < 1) {
    throw ConfigError(fmt::format(
        "OneCycleLR(total_steps={}): total_steps must be at least 1 (the number of step() "
        "calls in the cycle; PyTorch's epochs * steps_per_epoch)",
        total_steps));
  }
  if (!(options.pct_start >= 0.0 && options.pct_start <= 1.0)) {
    throw ConfigError(fmt::format(
        "OneCycleLR(pct_start={}): pct_start must be in [0, 1] (the fraction of the cycle spent "
        "raising the rate)",
        options.pct_start));
  }
  if (options.anneal_strategy != "cos" && options.anneal_strategy != "linear") {
    throw ConfigError(fmt::format(
        "OneCycleLR(anneal_strategy=\"{}\"): anneal_strategy must be \"cos\" or \"linear\"",
        options.anneal_strategy));
  }
  if (max_lrs.size() == 1) max_lrs.resize(groups, max_lrs[0]);
  if (max_lrs.size() != groups) {
    throw ConfigError(fmt::format(
        "OneCycleLR: max_lr has {} values for an optimizer with {} param groups; give one value "
        "for all groups or one per group",
        max_lrs.size(), groups));
  }
  if (options.cycle_momentum && momentum_kind_ == MomentumKind::kNone) {
    throw ConfigError(
        "OneCycleLR(cycle_momentum=true): the optimizer has neither a momentum (SGD, RMSprop) "
        "nor betas (Adam, AdamW) to cycle; set cycle_momentum = false");
  }

  const double total = static_cast<double>(total_steps);
  const double pct = options.pct_start;
  using B = Bound;
  if (options.three_phase) {
    schedule_.phases = {
        {pct * total - 1, B::kInitialLr, B::kMaxLr, B::kMaxMomentum, B::kBaseMomentum},
        {2 * pct * total - 2, B::kMaxLr, B::kInitialLr, B::kBaseMomentum, B::kMaxMomentum},
        {total - 1, B::kInitialLr, B::kMinLr, B::kMaxMomentum, B::kMaxMomentum}};
  } else {
    schedule_.phases = {
        {pct * total - 1, B::kInitialLr, B::kMaxLr, B::kMaxMomentum, B::kBaseMomentum},
        {total - 1, B::kMaxLr, B::kMinLr, B::kBaseMomentum, B::kMaxMomentum}};
  }
  schedule_.anneal_strategy = options.anneal_strategy;
  schedule_.cycle_momentum = options.cycle_momentum;
  base_lrs_.clear();
  for (double max_lr : max_lrs) {
    base_lrs_.push_back(max_lr / options.div_factor);
    schedule_.min_lrs.push_back(base_lrs_.back() / options.final_div_factor);
  }
  schedule_.max_lrs = std::move(max_lrs);
  schedule_.max_momentums.assign(groups, options.max_momentum);
  schedule_.base_momentums.assign(groups, options.base_momentum);
  if (schedule_.cycle_momentum) {
    for (size_t g = 0; g < groups; ++g) {
      set_group_momentum(optimizer_.param_groups()[g], options.max_momentum);
    }
  }
  initial_step();
}

double OneCycleLR::bound(size_t group, Bound which) const {
  switch (which) {
    case Bound::kInitialLr:
      return base_lrs_[group];
    case Bound::kMaxLr:
      return schedule_.max_lrs[group];
    case Bound::kMinLr:
      return schedule_.min_lrs[group];
    case Bound::kMaxMomentum:
      return schedule_.max_momentums[group];
    case Bound::kBaseMomentum:
      return schedule_.base_momentums[group];
  }
  return 0.0;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  // PyTorch's _annealing_cos and _annealing_linear, in their order of operations.
  if (schedule_.anneal_strategy == "cos") {
    const double cos_out = std::cos(std::numbers::pi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::compute_lrs(std::optional<double> /*metric*/) {
  if (last_epoch_ > total_steps_) {
    // PyTorch raises ValueError here too ("Tried to step N times").
    throw ConfigError(fmt::format(
        "OneCycleLR(total_steps={}): step() was called {} times, past the end of the cycle (at "
        "most total_steps times); make total_steps the number of times the scheduler steps in "
        "the whole fit (with interval \"step\": the optimizer steps of all epochs)",
        total_steps_, last_epoch_));
  }
  // The phase holding this step: the first that ends at or after it, else the last.
  const auto step = static_cast<double>(last_epoch_);
  double start_step = 0.0;
  size_t index = 0;
  for (; index + 1 < schedule_.phases.size(); ++index) {
    if (step <= schedule_.phases[index].end_step) break;
    start_step = schedule_.phases[index].end_step;
  }
  const Phase& phase = schedule_.phases[index];
  if (phase.end_step == start_step) {
    // Python's division raises ZeroDivisionError here; a NaN rate would be worse.
    throw ConfigError(fmt::format(
        "OneCycleLR(total_steps={}): phase {} of the cycle has no steps (it ends at step {} "
        "where the one before ends); choose a pct_start that gives every phase at least one "
        "step",
        total_steps_, index + 1, phase.end_step));
  }
  const double pct = (step - start_step) / (phase.end_step - start_step);
  std::vector<double> lrs;
  for (size_t g = 0; g < base_lrs_.size(); ++g) {
    lrs.push_back(anneal(bound(g, phase.start_lr), bound(g, phase.end_lr), pct));
    if (schedule_.cycle_momentum) {
      set_group_momentum(optimizer_.param_groups()[g],
                         anneal(bound(g, phase.start_momentum), bound(g, phase.end_momentum), pct));
    }
  }
  return lrs;
}

void OneCycleLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("total_steps", total_steps_);
}

void OneCycleLR::load_settings(const c10::impl::GenericDict& state) {
  total_steps_ = static_cast<int64_t>(number_at(state, "total_steps"));
}

namespace {

c10::List<double> as_list(const std::vector<double>& values) {
  c10::List<double> list;
  for (double v : values) list.push_back(v);
  return list;
}

}  // namespace

void OneCycleLR::save_extra_state(c10::impl::GenericDict& state) const {
  c10::impl::GenericList phases(c10::AnyType::get());
  for (const Phase& phase : schedule_.phases) {
    auto entry = make_checkpoint_dict();
    entry.insert("end_step", phase.end_step);
    entry.insert("start_lr", kBoundNames[static_cast<size_t>(phase.start_lr)]);
    entry.insert("end_lr", kBoundNames[static_cast<size_t>(phase.end_lr)]);
    entry.insert("start_momentum", kBoundNames[static_cast<size_t>(phase.start_momentum)]);
    entry.insert("end_momentum", kBoundNames[static_cast<size_t>(phase.end_momentum)]);
    phases.push_back(entry);
  }
  state.insert("_schedule_phases", phases);
  state.insert("_anneal_func_type", schedule_.anneal_strategy);
  state.insert("cycle_momentum", schedule_.cycle_momentum);
  if (schedule_.cycle_momentum) state.insert("use_beta1", momentum_kind_ == MomentumKind::kBeta1);
  state.insert("max_lrs", as_list(schedule_.max_lrs));
  state.insert("min_lrs", as_list(schedule_.min_lrs));
  state.insert("max_momentums", as_list(schedule_.max_momentums));
  state.insert("base_momentums", as_list(schedule_.base_momentums));
}

OneCycleLR::Schedule OneCycleLR::parse_schedule(const c10::impl::GenericDict& state,
                                                const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  if (reader.number("total_steps") < 1) reader.fail("has a total_steps below 1");
  Schedule schedule;
  for (const c10::IValue& item : reader.list("_schedule_phases")) {
    if (!item.isGenericDict())
      reader.fail("has a phase in \"_schedule_phases\" that is not a dict");
    SchedulerStateReader phase(item.toGenericDict(), source, name());
    auto bound_at = [&](const char* key) {
      const std::string value =
          phase.choice(key, std::vector<std::string>(kBoundNames.begin(), kBoundNames.end()));
      for (size_t i = 0; i < kBoundNames.size(); ++i) {
        if (value == kBoundNames[i]) return static_cast<Bound>(i);
      }
      return Bound::kInitialLr;  // unreachable: choice() accepted only these names
    };
    schedule.phases.push_back({phase.number("end_step"), bound_at("start_lr"), bound_at("end_lr"),
                               bound_at("start_momentum"), bound_at("end_momentum")});
  }
  if (schedule.phases.empty()) reader.fail("has no phase in \"_schedule_phases\"");
  schedule.anneal_strategy = reader.choice("_anneal_func_type", {"cos", "linear"});
  schedule.cycle_momentum = reader.flag("cycle_momentum");
  if (schedule.cycle_momentum && momentum_kind_ == MomentumKind::kNone) {
    reader.fail("cycles the momentum, but this optimizer has neither a momentum nor betas");
  }
  const size_t groups = optimizer_.param_groups().size();
  schedule.max_lrs = reader.numbers("max_lrs", groups);
  schedule.min_lrs = reader.numbers("min_lrs", groups);
  schedule.max_momentums = reader.numbers("max_momentums", groups);
  schedule.base_momentums = reader.numbers("base_momentums", groups);
  return schedule;
}

void OneCycleLR::check_extra_state(const c10::impl::GenericDict& state,
                                   const std::string& source) const {
  parse_schedule(state, source);
}

void OneCycleLR::load_extra_state(const c10::impl::GenericDict& state) {
  schedule_ = parse_schedule(state, "");
}

}  // namespace fulgur
