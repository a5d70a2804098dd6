#include "fulgur/metrics/text/edit_distance.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/text/text_inputs.h"

namespace fulgur::metrics {

EditDistance::EditDistance(EditDistanceOptions options)
    : TextMetric("EditDistance", 1), options_(std::move(options)) {
  if (options_.substitution_cost < 0) {
    throw ConfigError(fmt::format("EditDistance: substitution_cost must be 0 or more, not {}",
                                  options_.substitution_cost));
  }
  check_choice(name(), "reduction", options_.reduction, {"mean", "sum", "none"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (options_.reduction == "none") {
    scores_ = add_state("edit_scores_list", at::zeros({0}, doubles), Reduction::Cat);
  } else {
    scores_ = add_state("edit_scores", at::zeros({}, doubles), Reduction::Sum);
    pairs_ = add_state("num_elements", at::zeros({}, doubles), Reduction::Sum);
  }
}

void EditDistance::count(const std::u32string& pred, const std::u32string& target,
                         double* counts) const {
  counts[0] = static_cast<double>(edit_distance(pred, target, options_.substitution_cost));
}

void EditDistance::update_state(const at::Tensor& counts, const at::Tensor& /*unused*/) {
  const auto distances = counts.select(1, 0);
  if (options_.reduction == "none") {
    append(scores_, distances);
    return;
  }
  state(scores_).add_(distances.sum());
  state(pairs_).add_(static_cast<double>(distances.numel()));
}

at::Tensor EditDistance::compute_value() {
  if (options_.reduction == "none") return cat_state(scores_);
  if (options_.reduction == "sum") return state(scores_).clone();
  return state(scores_) / state(pairs_);
}

}  // namespace fulgur::metrics
