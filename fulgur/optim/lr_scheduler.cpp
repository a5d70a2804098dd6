#include "fulgur/optim/lr_scheduler.h"

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

LRScheduler::LRScheduler(torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = current_lrs();
  last_lrs_ = base_lrs_;
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  lrs.reserve(optimizer_.param_groups().size());
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::step(std::optional<double> metric) {
  if (needs_metric() && !metric) {
    throw ConfigError(fmt::format(
        "{}.step() needs the value of the monitored metric and got none; set `monitor` in "
        "the scheduler config to a metric you log, or call step(metric)",
        name()));
  }
  ++last_epoch_;
  ++step_count_;
  try {
    apply_lrs(compute_lrs(metric));
  } catch (...) {
    --last_epoch_;
    --step_count_;
    throw;
  }
}

void LRScheduler::initial_step() { apply_lrs(compute_lrs(std::nullopt)); }

void LRScheduler::restart() {
  const int64_t previous_epoch = last_epoch_;
  last_epoch_ = 0;
  ++step_count_;
  try {
    std::optional<std::vector<double>> closed = closed_form_lrs();
    apply_lrs(closed ? std::move(*closed) : compute_lrs(std::nullopt));
  } catch (...) {
    last_epoch_ = previous_epoch;
    --step_count_;
    throw;
  }
}

void LRScheduler::apply_lrs(std::vector<double> lrs) {
  auto& groups = optimizer_.param_groups();
  if (lrs.size() > groups.size()) {
    throw ConfigError(fmt::format(
        "{} computed {} learning rates for an optimizer with {} param groups; param groups "
        "must not be removed after the scheduler is created",
        name(), lrs.size(), groups.size()));
  }
  for (size_t i = 0; i < lrs.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lrs_ = current_lrs();
}

double LRScheduler::number_at(const c10::impl::GenericDict& state, const char* key) {
  const c10::IValue v = state.at(key);
  return v.isDouble() ? v.toDouble() : static_cast<double>(v.toInt());
}

namespace {

c10::List<double> to_list(const std::vector<double>& values) {
  c10::List<double> list;
  for (double v : values) list.push_back(v);
  return list;
}

}  // namespace

c10::impl::GenericDict LRScheduler::state_dict() const {
  auto state = make_checkpoint_dict();
  save_settings(state);
  save_extra_state(state);
  state.insert("base_lrs", to_list(base_lrs_));
  state.insert("last_epoch", last_epoch_);
  state.insert("verbose", false);
  state.insert("_step_count", step_count_);
  state.insert("_get_lr_called_within_step", false);
  state.insert("_last_lr", to_list(last_lrs_));
  return state;
}

LRScheduler::SavedState LRScheduler::parse_state(const c10::impl::GenericDict& state,
                                                 const std::string& source) const {
  auto fail = [&](const std::string& what) {
    return CheckpointError(fmt::format("{}: the state of scheduler {} {}", source, name(), what));
  };
  auto int_at = [&](const char* key) {
    if (!state.contains(key) || !state.at(key).isInt()) throw fail(fmt::format("has no int \"{}\"", key));
    return state.at(key).toInt();
  };
  auto rates_at = [&](const char* key) {
    if (!state.contains(key) || !state.at(key).isList()) throw fail(fmt::format("has no list \"{}\"", key));
    std::vector<double> rates;
    for (const auto& v : state.at(key).toListRef()) {
      if (!v.isDouble() && !v.isInt()) throw fail(fmt::format("has a non-number in \"{}\"", key));
      rates.push_back(v.isDouble() ? v.toDouble() : static_cast<double>(v.toInt()));
    }
    // Fewer rates than groups where groups were added after the scheduler was made.
    if (rates.empty() || rates.size() > optimizer_.param_groups().size()) {
      throw fail(fmt::format("has {} rates in \"{}\" for an optimizer with {} param groups",
                             rates.size(), key, optimizer_.param_groups().size()));
    }
    return rates;
  };
  auto saved_settings = make_checkpoint_dict();
  save_settings(saved_settings);
  for (const auto& entry : saved_settings) {
    const auto& key = entry.key().toStringRef();
    if (!state.contains(key) || !(state.at(key).isInt() || state.at(key).isDouble())) {
      throw fail(fmt::format("has no \"{}\"; was it saved from another scheduler?", key));
    }
  }
  SavedState saved{int_at("last_epoch"), int_at("_step_count"), rates_at("base_lrs"),
                   rates_at("_last_lr")};
  check_extra_state(state, source);
  return saved;
}

void LRScheduler::check_state_dict(const c10::impl::GenericDict& state,
                                   const std::string& source) const {
  parse_state(state, source);
}

void LRScheduler::load_state_dict(const c10::impl::GenericDict& state, const std::string& source) {
  SavedState saved = parse_state(state, source);
  load_settings(state);
  load_extra_state(state);
  last_epoch_ = saved.last_epoch;
  step_count_ = saved.step_count;
  base_lrs_ = std::move(saved.base_lrs);
  last_lrs_ = std::move(saved.last_lrs);
}

}  // namespace fulgur
