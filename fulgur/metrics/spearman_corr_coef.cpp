#include "fulgur/metrics/spearman_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <vector>

#include "fulgur/metrics/multioutput.h"

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
    : Metric("SpearmanCorrCoef"), options_(options) {
  check_num_outputs(name(), options_.num_outputs);
  // One output keeps [N] states, as before num_outputs.
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  const auto empty = options_.num_outputs == 1 ? at::zeros({0}, doubles)
                                               : at::zeros({0, options_.num_outputs}, doubles);
  preds_ = add_state("preds", empty, Reduction::Cat);
  target_ = add_state("target", empty, Reduction::Cat);
}

void SpearmanCorrCoef::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  const bool one = options_.num_outputs == 1;
  append(preds_, one ? p.reshape({-1}) : p);
  append(target_, one ? t.reshape({-1}) : t);
}

at::Tensor SpearmanCorrCoef::compute_value() {
  const int64_t outputs = options_.num_outputs;
  const auto p = cat_state(preds_).reshape({-1, outputs});
  const auto t = cat_state(target_).reshape({-1, outputs});
  if (p.size(0) < 2) fail(fmt::format("needs at least 2 samples to score, got {}", p.size(0)));
  std::vector<at::Tensor> r;
  for (int64_t o = 0; o < outputs; ++o) {
    const auto rp = mean_ranks(p.select(1, o).contiguous());
    const auto rt = mean_ranks(t.select(1, o).contiguous());
    const auto dp = rp - rp.mean(), dt = rt - rt.mean();
    r.push_back((dp * dt).sum() / (dp.square().sum().sqrt() * dt.square().sum().sqrt()));
  }
  const auto value = at::stack(r).clamp(-1, 1);
  return outputs == 1 ? value.squeeze(0) : value;
}

}  // namespace fulgur::metrics
