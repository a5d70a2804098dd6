#include "fulgur/metrics/continuous_ranked_probability_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fulgur::metrics {

ContinuousRankedProbabilityScore::ContinuousRankedProbabilityScore()
    : Metric("ContinuousRankedProbabilityScore") {
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = add_state("score", at::zeros({}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

void ContinuousRankedProbabilityScore::update_state(const at::Tensor& preds,
                                                    const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) fail("update() needs preds and target");
  if (preds.dim() != 2 || preds.size(1) < 2 || target.dim() != 1 ||
      target.size(0) != preds.size(0)) {
    fail(
        fmt::format("preds must be [N, members] with at least 2 members and target [N], not "
                    "[{}] and [{}]",
                    fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  const auto members = std::get<0>(preds.detach().to(at::kDouble).sort(1));
  const auto y = target.detach().to(at::kDouble);
  const int64_t m = members.size(1);
  const auto spread_to_target = (members - y.unsqueeze(1)).abs().mean(1);
  // sum_{i,j} |x_i - x_j| = 2 sum_k x_(k) (2k - m + 1) over the sorted members, k from 0.
  const auto weights = 2 * at::arange(m, members.options()) - (m - 1);
  const auto pairwise = 2 * (members * weights).sum(1);
  const auto scores = spread_to_target - pairwise / (2.0 * m * m);
  state(score_).add_(scores.sum());
  state(total_).add_(static_cast<double>(scores.numel()));
}

at::Tensor ContinuousRankedProbabilityScore::compute_value() {
  return state(score_) / state(total_);
}

}  // namespace fulgur::metrics
