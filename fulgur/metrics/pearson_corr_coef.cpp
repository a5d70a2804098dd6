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
    : PearsonCorrCoef("PearsonCorrCoef", options) {}

PearsonCorrCoef::PearsonCorrCoef(std::string metric_name, PearsonCorrCoefOptions options)
    : Metric(std::move(metric_name)), options_(options) {
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

PearsonCorrCoef::Moments PearsonCorrCoef::merged_moments() const {
  const auto rows = cat_state(moments_).view({-1, kColumns, options_.num_outputs});
  const auto column = [&](Column c) { return rows.select(1, c); };  // [updates, num_outputs]
  const auto count = column(kCount);
  const auto n = count.sum(0);
  const double samples = n[0].item<double>();
  if (samples < 2) fail(fmt::format("needs at least 2 samples to score, got {}", samples));
  const auto mean_pred = (count * column(kMeanPred)).sum(0) / n;
  const auto mean_target = (count * column(kMeanTarget)).sum(0) / n;
  // Each batch's deviations from the overall means: its own, plus its mean's offset.
  const auto off_pred = column(kMeanPred) - mean_pred;
  const auto off_target = column(kMeanTarget) - mean_target;
  return {n,
          mean_pred,
          mean_target,
          (column(kSqDevPred) + count * off_pred.square()).sum(0),
          (column(kSqDevTarget) + count * off_target.square()).sum(0),
          (column(kCoDev) + count * off_pred * off_target).sum(0)};
}

at::Tensor PearsonCorrCoef::per_output_value(const at::Tensor& value) const {
  return options_.num_outputs == 1 ? value.squeeze(0) : value;
}

at::Tensor PearsonCorrCoef::compute_value() {
  const auto m = merged_moments();
  return per_output_value(
      (m.co_dev / (m.sq_dev_pred.sqrt() * m.sq_dev_target.sqrt())).clamp(-1, 1));
}

}  // namespace fulgur::metrics
