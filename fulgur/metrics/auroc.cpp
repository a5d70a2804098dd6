#include "fulgur/metrics/auroc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

AUROC::AUROC(AUROCOptions options) : CurveMetric("AUROC", std::move(options)) {}

double AUROC::binary_score(const at::Tensor& scores, const at::Tensor& positives,
                           const std::string& what) const {
  const auto pos = positives.sum().item<double>();
  const auto neg = static_cast<double>(scores.size(0)) - pos;
  if (pos == 0 || neg == 0) {
    warn(fmt::format("AUROC: {} has no {} sample; its ROC curve is undefined and it scores 0", what,
                     pos == 0 ? "positive" : "negative"));
    return 0.0;
  }
  const auto counts = threshold_counts(scores, positives);
  // The curve starts at (0, 0); the trapezoids between its points give the area.
  const auto zero = at::zeros({1}, counts.tps.options());
  const auto tpr = at::cat({zero, counts.tps}) / pos;
  const auto fpr = at::cat({zero, counts.fps}) / neg;
  const int64_t points = tpr.size(0);
  const auto widths = fpr.slice(0, 1, points) - fpr.slice(0, 0, points - 1);
  const auto heights = (tpr.slice(0, 1, points) + tpr.slice(0, 0, points - 1)) / 2;
  return (widths * heights).sum().item<double>();
}

}  // namespace fulgur::metrics
