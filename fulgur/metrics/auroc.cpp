#include "fulgur/metrics/auroc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {
namespace {

// The area under the points (fpr[k], tpr[k]), by trapezoids.
double trapezoids(const at::Tensor& fpr, const at::Tensor& tpr) {
  const int64_t points = tpr.size(0);
  const auto widths = fpr.slice(0, 1, points) - fpr.slice(0, 0, points - 1);
  const auto heights = (tpr.slice(0, 1, points) + tpr.slice(0, 0, points - 1)) / 2;
  return (widths * heights).sum().item<double>();
}

}  // namespace

AUROC::AUROC(AUROCOptions options)
    : CurveScore("AUROC", options.curve()), max_fpr_(options.max_fpr) {
  if (!max_fpr_) return;
  if (!(*max_fpr_ > 0 && *max_fpr_ <= 1)) {
    throw ConfigError(
        fmt::format("AUROC(max_fpr={}) is not valid; it must lie in (0, 1]", *max_fpr_));
  }
  if (options.task != "binary") {
    throw ConfigError(
        fmt::format("AUROC(max_fpr={}) is only for task=\"binary\" (as torchmetrics), not \"{}\"",
                    *max_fpr_, options.task));
  }
}

double AUROC::score(const ThresholdCounts& curve, const std::string& what) const {
  if (curve.positives == 0 || curve.negatives == 0) {
    warn(fmt::format("AUROC: {} has no {} sample; its ROC curve is undefined and it scores 0", what,
                     curve.positives == 0 ? "positive" : "negative"));
    return 0.0;
  }
  auto tpr = curve.tps / curve.positives;
  auto fpr = curve.fps / curve.negatives;
  if (!max_fpr_ || *max_fpr_ == 1) return trapezoids(fpr, tpr);
  // Cut the curve at max_fpr: the points up to it, then one interpolated on the segment that
  // crosses it (none when the curve ends before it).
  const double cut = *max_fpr_;
  const auto f = fpr.to(at::kCPU), t = tpr.to(at::kCPU);
  const int64_t stop = f.le(cut).sum().item<int64_t>();  // fpr never decreases
  double partial = 0;
  if (stop > 0) {
    fpr = f.slice(0, 0, stop);
    tpr = t.slice(0, 0, stop);
    if (stop < f.size(0)) {
      const double f0 = f[stop - 1].item<double>(), f1 = f[stop].item<double>();
      const double t0 = t[stop - 1].item<double>(), t1 = t[stop].item<double>();
      const double at_cut = t0 + (t1 - t0) * (cut - f0) / (f1 - f0);
      fpr = at::cat({fpr, at::full({1}, cut, fpr.options())});
      tpr = at::cat({tpr, at::full({1}, at_cut, tpr.options())});
    }
    partial = trapezoids(fpr, tpr);
  }
  // McClish: chance (the diagonal) has area cut^2 / 2, a perfect ranking cut.
  const double chance = cut * cut / 2;
  return 0.5 * (1 + (partial - chance) / (cut - chance));
}

}  // namespace fulgur::metrics
