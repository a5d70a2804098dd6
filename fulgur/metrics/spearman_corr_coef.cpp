#include "fulgur/metrics/spearman_corr_coef.h"

#include <ATen/ATen.h>

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

SpearmanCorrCoef::SpearmanCorrCoef(SpearmanCorrCoefOptions options)
    : RankCorrelation("SpearmanCorrCoef", options.num_outputs) {}

at::Tensor SpearmanCorrCoef::coefficient(const at::Tensor& preds, const at::Tensor& target) const {
  const auto rp = mean_ranks(preds), rt = mean_ranks(target);
  const auto dp = rp - rp.mean(), dt = rt - rt.mean();
  return (dp * dt).sum() / (dp.square().sum().sqrt() * dt.square().sum().sqrt());
}

}  // namespace fulgur::metrics
