#include "fulgur/metrics/curve_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

CurveMetric::CurveMetric(std::string name, CurveOptions options)
    : Metric(std::move(name)),
      options_(std::move(options)),
      task_(parse_task(this->name(), options_.task, options_.num_classes)) {
  const auto& a = options_.average;
  if (a != "macro" && a != "weighted" && a != "none") {
    throw ConfigError(
        fmt::format("{}(average=\"{}\") is not valid; choose \"macro\", \"weighted\" or \"none\"",
                    this->name(), a));
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

void CurveMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (preds.defined() && !preds.is_floating_point()) {
    fail(fmt::format("preds must be scores (probabilities or logits), got {} values",
                     c10::toString(preds.scalar_type())));
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

ThresholdCounts CurveMetric::threshold_counts(const at::Tensor& scores,
                                              const at::Tensor& positives) {
  const int64_t n = scores.size(0);
  const auto order = scores.argsort(/*dim=*/0, /*descending=*/true);
  const auto sorted = scores.index_select(0, order);
  const auto hits = positives.index_select(0, order).to(at::kDouble);
  const auto last = at::cat({sorted.slice(0, 0, n - 1).ne(sorted.slice(0, 1, n)),
                             at::ones({1}, sorted.options().dtype(at::kBool))});
  return {hits.cumsum(0).masked_select(last), (1 - hits).cumsum(0).masked_select(last)};
}

at::Tensor CurveMetric::compute_value() {
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
    return at::scalar_tensor(binary_score(scores, target.to(at::kDouble), "the binary target"),
                             out);
  }
  const int64_t classes = *options_.num_classes;
  std::vector<double> per_class, support;
  std::vector<int64_t> undefined;
  for (int64_t c = 0; c < classes; ++c) {
    const auto positives = target.eq(c).to(at::kDouble);
    per_class.push_back(
        binary_score(scores.select(1, c).contiguous(), positives, fmt::format("class {}", c)));
    support.push_back(positives.sum().item<double>());
    if (std::isnan(per_class.back())) undefined.push_back(c);
  }
  if (options_.average == "none") return at::tensor(per_class, out);
  if (!undefined.empty()) {
    warn(fmt::format("{}: the score of class(es) {} is NaN; the {} average leaves them out", name(),
                     fmt::join(undefined, ", "), options_.average));
  }
  double total = 0, weights = 0;
  for (int64_t c = 0; c < classes; ++c) {
    if (std::isnan(per_class[c])) continue;
    const double weight = options_.average == "weighted" ? support[c] : 1.0;
    total += weight * per_class[c];
    weights += weight;
  }
  return at::scalar_tensor(weights > 0 ? total / weights : std::nan(""), out);
}

}  // namespace fulgur::metrics
