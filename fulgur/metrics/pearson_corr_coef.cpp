#include "fulgur/metrics/pearson_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

namespace {
// The columns of one update's row in the moments state.
enum Column : int64_t {
  kCount,
  kMeanPred,
  kMeanTarget,
  kSqDevPred,
  kSqDevTarget,
  kCoDev,
  kColumns
};
}  // namespace

PearsonCorrCoef::PearsonCorrCoef() : Metric("PearsonCorrCoef") {
  moments_ = add_state("moments", at::zeros({0, kColumns}, at::TensorOptions().dtype(at::kDouble)),
                       Reduction::Cat);
}

void PearsonCorrCoef::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 1) {
    fail(fmt::format("preds and target must be [N], not [{}]", fmt::join(p.sizes(), ", ")));
  }
  if (p.size(0) == 0) return;
  const auto mean_p = p.mean(), mean_t = t.mean();
  const auto dp = p - mean_p, dt = t - mean_t;
  const auto count = at::full({}, static_cast<double>(p.size(0)), p.options());
  append(moments_,
         at::stack({count, mean_p, mean_t, dp.square().sum(), dt.square().sum(), (dp * dt).sum()})
             .unsqueeze(0));
}

at::Tensor PearsonCorrCoef::compute_value() {
  const auto rows = cat_state(moments_);
  const auto count = rows.select(1, kCount);
  const auto n = count.sum();
  if (n.item<double>() < 2) {
    fail(fmt::format("needs at least 2 samples to score, got {}", n.item<double>()));
  }
  // Each batch's deviations from the overall means: its own, plus its mean's offset.
  const auto off_pred = rows.select(1, kMeanPred) - (count * rows.select(1, kMeanPred)).sum() / n;
  const auto off_target =
      rows.select(1, kMeanTarget) - (count * rows.select(1, kMeanTarget)).sum() / n;
  const auto sq_pred = (rows.select(1, kSqDevPred) + count * off_pred.square()).sum();
  const auto sq_target = (rows.select(1, kSqDevTarget) + count * off_target.square()).sum();
  const auto co = (rows.select(1, kCoDev) + count * off_pred * off_target).sum();
  return (co / (sq_pred.sqrt() * sq_target.sqrt())).clamp(-1, 1);
}

}  // namespace fulgur::metrics
