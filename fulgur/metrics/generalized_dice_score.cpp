#include "fulgur/metrics/generalized_dice_score.h"

#include <ATen/ATen.h>

#include <vector>

#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/segmentation_inputs.h"

namespace fulgur::metrics {
namespace {

// a / b, 0 where b is 0.
at::Tensor divide_or_zero(const at::Tensor& a, const at::Tensor& b) {
  return at::where(b.eq(0), at::zeros_like(a), a / b);
}

}  // namespace

GeneralizedDiceScore::GeneralizedDiceScore(GeneralizedDiceScoreOptions options)
    : Metric("GeneralizedDiceScore"), options_(std::move(options)) {
  check_segmentation_options(name(), options_.num_classes, options_.input_format);
  check_choice(name(), "weight_type", options_.weight_type, {"square", "simple", "linear"});
  const int64_t width =
      options_.per_class ? scored_classes(options_.num_classes, options_.include_background) : 1;
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = add_state("score", at::zeros({width}, doubles), Reduction::Sum);
  samples_ = add_state("samples", at::zeros({}, doubles), Reduction::Sum);
}

void GeneralizedDiceScore::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = segmentation_masks(name(), preds, target, options_.num_classes,
                                         options_.include_background, options_.input_format);
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < p.dim(); ++d) spatial.push_back(d);
  const auto intersection = (p * t).sum(spatial).to(at::kDouble);  // [N, C]
  const auto target_sum = t.sum(spatial).to(at::kDouble);
  const auto cardinality = p.sum(spatial).to(at::kDouble) + target_sum;
  at::Tensor weights = at::ones_like(target_sum);
  if (options_.weight_type == "simple") weights = 1 / target_sum;
  if (options_.weight_type == "square") weights = 1 / target_sum.square();
  const auto absent = weights.isinf();
  weights = weights.masked_fill(absent, 0);
  const auto largest = std::get<0>(weights.max(1, true)).expand_as(weights);
  weights = at::where(absent, largest, weights);
  const auto numerator = 2 * intersection * weights;
  const auto denominator = cardinality * weights;
  const auto scores = options_.per_class
                          ? divide_or_zero(numerator, denominator)
                          : divide_or_zero(numerator.sum(1, true), denominator.sum(1, true));
  state(score_).add_(scores.sum(0));
  state(samples_).add_(static_cast<double>(p.size(0)));
}

at::Tensor GeneralizedDiceScore::compute_value() {
  const auto value = state(score_) / state(samples_);
  return options_.per_class ? value : value.reshape({});
}

}  // namespace fulgur::metrics
