#include "fulgur/metrics/auroc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

AUROC::AUROC(AUROCOptions options) : CurveMetric("AUROC", std::move(options)) {}

double AUROC::score(const ThresholdCounts& curve, const std::string& what) const {
  if (curve.positives == 0 || curve.negatives == 0) {
    warn(fmt::format("AUROC: {} has no {} sample; its ROC curve is undefined and it scores 0", what,
                     curve.positives == 0 ? "positive" : "negative"));
    return 0.0;
  }
  const auto tpr = curve.tps / curve.positives;
  const auto fpr = curve.fps / curve.negatives;
  const int64_t points = tpr.size(0);
  const auto widths = fpr.slice(0, 1, points) - fpr.slice(0, 0, points - 1);
  const auto heights = (tpr.slice(0, 1, points) + tpr.slice(0, 0, points - 1)) / 2;
  return (widths * heights).sum().item<double>();
}

}  // namespace fulgur::metrics
