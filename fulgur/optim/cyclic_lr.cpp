#include "fulgur/optim/cyclic_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

const std::vector<std::string> kModes = {"triangular", "triangular2", "exp_range"};
const std::vector<std::string> kScaleModes = {"cycle", "iterations"};

bool is_one_of(const std::string& value, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// PyTorch's _format_param: one value per group, or one for all of them.
std::vector<double> per_group(const char* name, std::vector<double> values, size_t groups) {
  if (values.size() == 1 && groups > 1) values.assign(groups, values.front());
  if (values.size() != groups) {
    throw ConfigError(
        fmt::format("CyclicLR: expected {} values for {} (one per param group), got {}", groups,
                    name, values.size()));
  }
  return values;
}

// torch >= 2.2 drives Adam's first beta where 1.13 wants `momentum`: its flag in the state.
bool uses_beta1(MomentumKind kind) { return kind == MomentumKind::kBeta1; }

}  // namespace

CyclicLR::CyclicLR(torch::optim::Optimizer& optimizer, double base_lr, double max_lr,
                   CyclicLROptions options)
    : CyclicLR(optimizer, std::vector<double>{base_lr}, std::vector<double>{max_lr},
               std::move(options)) {}

CyclicLR::CyclicLR(torch::optim::Optimizer& optimizer, std::vector<double> base_lr,
                   std::vector<double> max_lr, CyclicLROptions options)
    : LRScheduler(optimizer),
      gamma_(options.gamma),
      scale_fn_(std::move(options.scale_fn)),
      momentum_kind_(momentum_kind(optimizer)) {
  const size_t groups = optimizer.param_groups().size();
  const int64_t up = options.step_size_up;
  const int64_t down = options.step_size_down.value_or(up);
  // Both would divide by zero in PyTorch: 0 / 0 at each cycle's start, or a zero cycle.
  if (up < 1 || down < 0) {
    throw ConfigError(fmt::format(
        "CyclicLR(step_size_up={}, step_size_down={}): step_size_up must be at least 1 and "
        "step_size_down at least 0 (the periods in each half of a cycle)",
        up, down));
  }
  if (!scale_fn_ && !is_one_of(options.mode, kModes)) {
    throw ConfigError(
        fmt::format("CyclicLR(mode=\"{}\"): mode must be one of {} (or give a scale_fn)",
                    options.mode, fmt::join(kModes, ", ")));
  }
  if (!is_one_of(options.scale_mode, kScaleModes)) {
    throw ConfigError(fmt::format("CyclicLR(scale_mode=\"{}\"): scale_mode must be one of {}",
                                  options.scale_mode, fmt::join(kScaleModes, ", ")));
  }
  if (options.cycle_momentum && momentum_kind_ == MomentumKind::kNone) {
    throw ConfigError(
        "CyclicLR(cycle_momentum=true): the optimizer has neither a momentum (SGD, RMSprop) nor "
        "betas (Adam, AdamW) to cycle; set cycle_momentum = false");
  }
  total_size_ = static_cast<double>(up) + static_cast<double>(down);
  step_ratio_ = static_cast<double>(up) / total_size_;
  cycle_.mode = options.mode;
  // PyTorch: the built-in modes fix what they are evaluated on; scale_mode is scale_fn's.
  cycle_.scale_mode =
      scale_fn_ ? options.scale_mode : (options.mode == "exp_range" ? "iterations" : "cycle");
  base_lrs_ = per_group("base_lr", std::move(base_lr), groups);
  cycle_.max_lrs = per_group("max_lr", std::move(max_lr), groups);
  cycle_.cycle_momentum = options.cycle_momentum;
  if (cycle_.cycle_momentum) {
    cycle_.base_momentums.assign(groups, options.base_momentum);
    cycle_.max_momentums.assign(groups, options.max_momentum);
  }
  for (size_t g = 0; g < groups; ++g) optimizer.param_groups()[g].options().set_lr(base_lrs_[g]);
  initial_step();
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  if (cycle_.mode == "triangular2") return 1 / std::pow(2., x - 1);
  if (cycle_.mode == "exp_range") return std::pow(gamma_, x);
  return 1.;
}

std::vector<double> CyclicLR::compute_lrs(std::optional<double> /*metric*/) {
  // torch 1.13's get_lr, in its order of operations.
  const auto e = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1. + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double amplitude = scale(cycle_.scale_mode == "cycle" ? cycle : e);
  std::vector<double> lrs(base_lrs_.size());
  for (size_t g = 0; g < lrs.size(); ++g) {
    lrs[g] = base_lrs_[g] + (cycle_.max_lrs[g] - base_lrs_[g]) * scale_factor * amplitude;
  }
  if (cycle_.cycle_momentum) {
    auto& groups = optimizer_.param_groups();
    for (size_t g = 0; g < std::min(groups.size(), cycle_.max_momentums.size()); ++g) {
      const double height = (cycle_.max_momentums[g] - cycle_.base_momentums[g]) * scale_factor;
      set_group_momentum(groups[g], cycle_.max_momentums[g] - height * amplitude);
    }
  }
  return lrs;
}

void CyclicLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("total_size", total_size_);
  state.insert("step_ratio", step_ratio_);
  state.insert("gamma", gamma_);
}

void CyclicLR::load_settings(const c10::impl::GenericDict& state) {
  total_size_ = number_at(state, "total_size");
  step_ratio_ = number_at(state, "step_ratio");
  gamma_ = number_at(state, "gamma");
}

void CyclicLR::save_extra_state(c10::impl::GenericDict& state) const {
  auto as_list = [](const std::vector<double>& values) {
    return c10::List<double>(c10::ArrayRef<double>(values));
  };
  state.insert("max_lrs", as_list(cycle_.max_lrs));
  state.insert("mode", cycle_.mode);
  state.insert("scale_mode", cycle_.scale_mode);
  state.insert("_scale_fn_custom", c10::IValue());
  state.insert("cycle_momentum", cycle_.cycle_momentum);
  if (cycle_.cycle_momentum) {
    state.insert("use_beta1", uses_beta1(momentum_kind_));
    state.insert("base_momentums", as_list(cycle_.base_momentums));
    state.insert("max_momentums", as_list(cycle_.max_momentums));
  }
}

CyclicLR::Cycle CyclicLR::parse_cycle(const c10::impl::GenericDict& state,
                                      const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  const double total_size = reader.number("total_size");
  const double step_ratio = reader.number("step_ratio");
  if (!(total_size > 0 && step_ratio > 0 && step_ratio <= 1)) {
    reader.fail(fmt::format(
        "has a cycle of {} periods rising for a fraction {} of it; CyclicLR needs a positive "
        "size and a fraction in (0, 1]",
        total_size, step_ratio));
  }
  const size_t groups = base_lrs_.size();
  Cycle cycle;
  cycle.max_lrs = reader.numbers("max_lrs", groups);
  cycle.mode = reader.choice("mode", kModes);
  cycle.scale_mode = reader.choice("scale_mode", kScaleModes);
  cycle.cycle_momentum = reader.flag("cycle_momentum");
  if (cycle.cycle_momentum) {
    if (momentum_kind_ == MomentumKind::kNone) {
      reader.fail("cycles the momentum, but this optimizer has neither a momentum nor betas");
    }
    cycle.base_momentums = reader.numbers("base_momentums", groups);
    cycle.max_momentums = reader.numbers("max_momentums", groups);
  }
  return cycle;
}

void CyclicLR::check_extra_state(const c10::impl::GenericDict& state,
                                 const std::string& source) const {
  parse_cycle(state, source);
}

void CyclicLR::load_extra_state(const c10::impl::GenericDict& state) {
  cycle_ = parse_cycle(state, "");
}

}  // namespace fulgur
