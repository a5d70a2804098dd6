#include "fulgur/metrics/spearman_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

namespace {

// Ranks 1..N of the values of `x` [N]; a group of equal values gets the mean of its ranks.
at::Tensor mean_ranks(const at::Tensor& x) {
  const auto [sorted, order] = x.sort();
  const int64_t n = x.size(0);
  // The tie group of each sorted value: a new group starts wherever the value changes.
  const auto starts = at::cat({at::ones({1}, x.options().dtype(at::kLong)),
                               sorted.slice(0, 1, n).ne(sorted.slice(0, 0, n - 1)).to(at::kLong)});
  const auto group = starts.cumsum(0) - 1;
  const int64_t groups = group[-1].item<int64_t>() + 1;
  const auto positions = at::arange(1, n + 1, x.options());
  const auto rank_sum = at::zeros({groups}, x.options()).index_add_(0, group, positions);
  const auto size = at::zeros({groups}, x.options()).index_add_(0, group, at::ones_like(positions));
  return at::empty_like(x).index_put_({order}, (rank_sum / size).index_select(0, group));
}

}  // namespace

SpearmanCorrCoef::SpearmanCorrCoef() : Metric("SpearmanCorrCoef") {
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  preds_ = add_state("preds", at::zeros({0}, doubles), Reduction::Cat);
  target_ = add_state("target", at::zeros({0}, doubles), Reduction::Cat);
}

void SpearmanCorrCoef::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 1) {
    fail(fmt::format("preds and target must be [N], not [{}]", fmt::join(p.sizes(), ", ")));
  }
  append(preds_, p);
  append(target_, t);
}

at::Tensor SpearmanCorrCoef::compute_value() {
  const auto p = cat_state(preds_), t = cat_state(target_);
  if (p.size(0) < 2) fail(fmt::format("needs at least 2 samples to score, got {}", p.size(0)));
  const auto rp = mean_ranks(p), rt = mean_ranks(t);
  const auto dp = rp - rp.mean(), dt = rt - rt.mean();
  return ((dp * dt).sum() / (dp.square().sum().sqrt() * dt.square().sum().sqrt())).clamp(-1, 1);
}

}  // namespace fulgur::metrics
