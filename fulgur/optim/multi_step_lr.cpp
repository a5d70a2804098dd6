#include "fulgur/optim/multi_step_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

MultiStepLR::MultiStepLR(torch::optim::Optimizer& optimizer, std::vector<int64_t> milestones,
                         double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  // PyTorch keeps a Counter and so accepts any order, but its closed form (used by
  // SequentialLR) sorts them and its docs require increasing ones: an unsorted list is a typo.
  if (!std::is_sorted(milestones_.begin(), milestones_.end())) {
    throw ConfigError(fmt::format(
        "MultiStepLR(milestones=[{}]): milestones must be in increasing order (the periods at "
        "which the rate is multiplied by gamma)",
        fmt::join(milestones_, ", ")));
  }
  initial_step();
}

std::vector<double> MultiStepLR::compute_lrs(std::optional<double> /*metric*/) {
  // Chainable, as in PyTorch: decay what the groups hold now.
  const auto [first, last] = std::equal_range(milestones_.begin(), milestones_.end(), last_epoch_);
  std::vector<double> lrs = current_lrs();
  if (first == last) return lrs;
  const double decay = std::pow(gamma_, static_cast<double>(last - first));
  for (auto& lr : lrs) lr *= decay;
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lrs() const {
  const auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  const double decay = std::pow(gamma_, static_cast<double>(passed));
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr *= decay;
  return lrs;
}

void MultiStepLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("gamma", gamma_);
}

void MultiStepLR::load_settings(const c10::impl::GenericDict& state) {
  gamma_ = number_at(state, "gamma");
}

void MultiStepLR::save_extra_state(c10::impl::GenericDict& state) const {
  c10::Dict<int64_t, int64_t> counter;
  for (int64_t milestone : milestones_) {
    auto it = counter.find(milestone);
    counter.insert_or_assign(milestone, it == counter.end() ? 1 : it->value() + 1);
  }
  state.insert("milestones", counter);
}

std::vector<int64_t> MultiStepLR::parse_milestones(const c10::impl::GenericDict& state,
                                                   const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::vector<int64_t> milestones;
  for (const auto& entry : reader.dict("milestones")) {
    if (!entry.key().isInt() || !entry.value().isInt() || entry.value().toInt() < 1) {
      reader.fail("has a \"milestones\" that is not a dict {milestone: count}");
    }
    milestones.insert(milestones.end(), entry.value().toInt(), entry.key().toInt());
  }
  std::sort(milestones.begin(), milestones.end());
  return milestones;
}

void MultiStepLR::check_extra_state(const c10::impl::GenericDict& state,
                                    const std::string& source) const {
  parse_milestones(state, source);
}

void MultiStepLR::load_extra_state(const c10::impl::GenericDict& state) {
  milestones_ = parse_milestones(state, "");
}

}  // namespace fulgur
