#include "fulgur/metrics/multilabel_ranking_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

MultilabelRankingMetric::MultilabelRankingMetric(std::string name,
                                                 const MultilabelRankingOptions& options)
    : Metric(std::move(name)), options_(options) {
  if (options_.num_labels < 2) {
    throw ConfigError(fmt::format("{}(num_labels={}) is not valid; it needs num_labels >= 2",
                                  this->name(), options_.num_labels));
  }
  score_sum_ =
      add_state("score_sum", at::zeros({}, at::TensorOptions().dtype(at::kDouble)), Reduction::Sum);
  samples_ =
      add_state("samples", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void MultilabelRankingMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) fail("update() needs preds and target");
  const int64_t labels = options_.num_labels;
  if (preds.dim() != 2 || preds.size(1) != labels || preds.sizes() != target.sizes()) {
    fail(fmt::format("preds and target must both be [N, {}] (num_labels={}), got [{}] and [{}]",
                     labels, labels, fmt::join(preds.sizes(), ", "),
                     fmt::join(target.sizes(), ", ")));
  }
  if (!preds.is_floating_point()) fail("preds must be scores (a floating tensor)");
  if (options_.validate_args && target.numel() > 0 &&
      !(target.eq(0) | target.eq(1)).all().item<bool>()) {
    fail("target must hold only 0 and 1");
  }
  const auto p = preds.detach().to(at::kDouble);
  const auto t = target.detach().ne(0);
  const auto at_least = p.unsqueeze(1) >= p.unsqueeze(2);
  state(score_sum_).add_(sample_scores(p, t, at_least).sum());
  state(samples_).add_(p.size(0));
}

at::Tensor MultilabelRankingMetric::compute_value() {
  return state(score_sum_) / state(samples_).to(at::kDouble);
}

}  // namespace fulgur::metrics
