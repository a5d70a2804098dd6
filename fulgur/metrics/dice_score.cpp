#include "fulgur/metrics/dice_score.h"

#include <ATen/ATen.h>

#include <limits>
#include <vector>

#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/segmentation_inputs.h"

namespace fulgur::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// a / b, NaN where b is 0.
at::Tensor divide_or_nan(const at::Tensor& a, const at::Tensor& b) {
  return at::where(b.eq(0), at::full_like(a, kNaN), a / b);
}

}  // namespace

DiceScore::DiceScore(DiceScoreOptions options) : Metric("DiceScore"), options_(std::move(options)) {
  check_segmentation_options(name(), options_.num_classes, options_.input_format);
  check_choice(name(), "average", options_.average, {"micro", "macro", "weighted", "none"});
  check_choice(name(), "aggregation_level", options_.aggregation_level, {"samplewise", "global"});
  const int64_t classes = scored_classes(options_.num_classes, options_.include_background);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (options_.aggregation_level == "samplewise") {
    const int64_t width = options_.average == "none" ? classes : 1;
    first_ = add_state("score", at::zeros({width}, doubles), Reduction::Sum);
    second_ = add_state("samples", at::zeros({width}, doubles), Reduction::Sum);
  } else {
    first_ = add_state("numerator", at::zeros({classes}, doubles), Reduction::Sum);
    second_ = add_state("denominator", at::zeros({classes}, doubles), Reduction::Sum);
    support_ = add_state("support", at::zeros({classes}, doubles), Reduction::Sum);
  }
}

at::Tensor DiceScore::score_rows(const at::Tensor& numerator, const at::Tensor& denominator,
                                 const at::Tensor& support) const {
  const auto& average = options_.average;
  if (average == "micro") return divide_or_nan(numerator.sum(1), denominator.sum(1));
  const auto dice = divide_or_nan(numerator, denominator);
  if (average == "macro") return dice.nanmean(1);
  if (average == "weighted") {
    const auto weights = divide_or_nan(support, support.sum(1, true));
    const auto weighted = (dice * weights).nansum(1);
    return at::where(dice.isnan().all(1), at::full_like(weighted, kNaN), weighted);
  }
  return dice;
}

void DiceScore::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = segmentation_masks(name(), preds, target, options_.num_classes,
                                         options_.include_background, options_.input_format);
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < p.dim(); ++d) spatial.push_back(d);
  const auto numerator = 2 * (p * t).sum(spatial).to(at::kDouble);
  const auto target_sum = t.sum(spatial).to(at::kDouble);
  const auto denominator = p.sum(spatial).to(at::kDouble) + target_sum;
  if (options_.aggregation_level == "global") {
    state(first_).add_(numerator.sum(0));
    state(second_).add_(denominator.sum(0));
    state(support_).add_(target_sum.sum(0));
    return;
  }
  auto scores = score_rows(numerator, denominator, target_sum);  // [N] or [N, C]
  if (scores.dim() == 1) scores = scores.unsqueeze(1);
  const auto scored = scores.isnan().logical_not();
  state(first_).add_(at::where(scored, scores, at::zeros_like(scores)).sum(0));
  state(second_).add_(scored.sum(0).to(at::kDouble));
}

at::Tensor DiceScore::compute_value() {
  at::Tensor value;
  if (options_.aggregation_level == "global") {
    value = score_rows(state(first_).unsqueeze(0), state(second_).unsqueeze(0),
                       state(support_).unsqueeze(0))[0];
  } else {
    value = divide_or_nan(state(first_), state(second_));
  }
  return options_.average == "none" ? value : value.reshape({});
}

}  // namespace fulgur::metrics
