#include "fulgur/metrics/pearson_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

namespace {
// The moments of one update, each a block of num_outputs numbers in its row of the state.
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

PearsonCorrCoef::PearsonCorrCoef(PearsonCorrCoefOptions options)
    : Metric("PearsonCorrCoef"), options_(options) {
  check_num_outputs(name(), options_.num_outputs);
  // [updates, kColumns * num_outputs]: one output keeps the six-column rows of before.
  moments_ = add_state(
      "moments",
      at::zeros({0, kColumns * options_.num_outputs}, at::TensorOptions().dtype(at::kDouble)),
      Reduction::Cat);
}

void PearsonCorrCoef::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  if (p.size(0) == 0) return;
  const auto mean_p = p.mean(0), mean_t = t.mean(0);
  const auto dp = p - mean_p, dt = t - mean_t;
  const auto count = at::full_like(mean_p, static_cast<double>(p.size(0)));
  append(moments_,
         at::cat({count, mean_p, mean_t, dp.square().sum(0), dt.square().sum(0), (dp * dt).sum(0)})
             .unsqueeze(0));
}

at::Tensor PearsonCorrCoef::compute_value() {
  const auto rows = cat_state(moments_).view({-1, kColumns, options_.num_outputs});
  const auto column = [&](Column c) { return rows.select(1, c); };  // [updates, num_outputs]
  const auto count = column(kCount);
  const auto n = count.sum(0);
  const double samples = n[0].item<double>();
  if (samples < 2) fail(fmt::format("needs at least 2 samples to score, got {}", samples));
  // Each batch's deviations from the overall means: its own, plus its mean's offset.
  const auto off_pred = column(kMeanPred) - (count * column(kMeanPred)).sum(0) / n;
  const auto off_target = column(kMeanTarget) - (count * column(kMeanTarget)).sum(0) / n;
  const auto sq_pred = (column(kSqDevPred) + count * off_pred.square()).sum(0);
  const auto sq_target = (column(kSqDevTarget) + count * off_target.square()).sum(0);
  const auto co = (column(kCoDev) + count * off_pred * off_target).sum(0);
  const auto r = (co / (sq_pred.sqrt() * sq_target.sqrt())).clamp(-1, 1);
  return options_.num_outputs == 1 ? r.squeeze(0) : r;
}

}  // namespace fulgur::metrics
