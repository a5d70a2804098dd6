#include "fulgur/metrics/auroc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

AUROC::AUROC(AUROCOptions options)
    : Metric("AUROC"),
      options_(std::move(options)),
      task_(parse_task(name(), options_.task, options_.num_classes)) {
  const auto& a = options_.average;
  if (a != "macro" && a != "weighted" && a != "none") {
    throw ConfigError(fmt::format(
        "AUROC(average=\"{}\") is not valid; choose \"macro\", \"weighted\" or \"none\"", a));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  preds_ = add_state("preds",
                     task_ == Task::Binary ? at::zeros({0}, doubles)
                                           : at::zeros({0, *options_.num_classes}, doubles),
                     Reduction::Cat);
  // Raw targets, ignore_index included: dropping ignored samples needs their count (a host
  // read), so compute() does it once.
  target_ =
      add_state("target", at::zeros({0}, at::TensorOptions().dtype(at::kLong)), Reduction::Cat);
}

void AUROC::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (preds.defined() && !preds.is_floating_point()) {
    fail(fmt::format("preds must be scores (probabilities or logits), got {} values",
                     preds.defined() ? c10::toString(preds.scalar_type()) : "no"));
  }
  if (task_ == Task::Binary) {
    // For its shape and value checks; the labels it makes are not needed.
    format_binary(name(), preds, target, 0.5, o.ignore_index, o.validate_args);
    append(preds_, binary_probabilities(preds.reshape({-1})));
  } else {
    const auto batch =
        format_multiclass(name(), preds, target, *o.num_classes, o.ignore_index, o.validate_args);
    append(preds_, multiclass_probabilities(batch.preds));
  }
  append(target_, target.reshape({-1}));
}

double AUROC::binary_area(const at::Tensor& scores, const at::Tensor& positives,
                          const std::string& what) const {
  const int64_t n = scores.size(0);
  const auto pos = positives.sum().item<double>();
  const auto neg = static_cast<double>(n) - pos;
  if (pos == 0 || neg == 0) {
    warn(fmt::format("AUROC: {} has no {} sample; its ROC curve is undefined and it scores 0", what,
                     pos == 0 ? "positive" : "negative"));
    return 0.0;
  }
  const auto order = scores.argsort(/*dim=*/0, /*descending=*/true);
  const auto sorted = scores.index_select(0, order);
  const auto hits = positives.index_select(0, order).to(at::kDouble);
  // One point of the curve per distinct score: the cumulative counts at each group's last
  // sample.
  const auto last = at::cat({sorted.slice(0, 0, n - 1).ne(sorted.slice(0, 1, n)),
                             at::ones({1}, sorted.options().dtype(at::kBool))});
  const auto zero = at::zeros({1}, hits.options());
  const auto tpr = at::cat({zero, hits.cumsum(0).masked_select(last)}) / pos;
  const auto fpr = at::cat({zero, (1 - hits).cumsum(0).masked_select(last)}) / neg;
  const int64_t points = tpr.size(0);
  const auto widths = fpr.slice(0, 1, points) - fpr.slice(0, 0, points - 1);
  const auto heights = (tpr.slice(0, 1, points) + tpr.slice(0, 0, points - 1)) / 2;
  return (widths * heights).sum().item<double>();
}

at::Tensor AUROC::compute_value() {
  auto scores = cat_state(preds_);
  auto target = cat_state(target_);
  if (options_.ignore_index) {
    const auto keep = target.ne(*options_.ignore_index);
    scores = scores.index({keep});
    target = target.index({keep});
  }
  if (target.size(0) == 0) {
    fail("every sample seen so far was ignored (ignore_index); there is nothing to score");
  }
  const auto out = at::TensorOptions().dtype(at::kDouble).device(device());
  if (task_ == Task::Binary) {
    return at::scalar_tensor(binary_area(scores, target, "the binary target"), out);
  }
  const int64_t classes = *options_.num_classes;
  std::vector<double> areas, support;
  for (int64_t c = 0; c < classes; ++c) {
    const auto positives = target.eq(c);
    areas.push_back(
        binary_area(scores.select(1, c).contiguous(), positives, fmt::format("class {}", c)));
    support.push_back(positives.sum().item<double>());
  }
  const auto per_class = at::tensor(areas, out);
  if (options_.average == "none") return per_class;
  if (options_.average == "weighted") {
    const auto weights = at::tensor(support, out);
    return (per_class * weights).sum() / weights.sum();
  }
  return per_class.mean();
}

}  // namespace fulgur::metrics
