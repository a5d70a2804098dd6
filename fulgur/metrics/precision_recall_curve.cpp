#include "fulgur/metrics/precision_recall_curve.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

PrecisionRecallCurve::PrecisionRecallCurve(PrecisionRecallCurveOptions options)
    : PrecisionRecallCurve("PrecisionRecallCurve", std::move(options)) {}

PrecisionRecallCurve::PrecisionRecallCurve(std::string metric_name,
                                           PrecisionRecallCurveOptions options)
    : CurveMetric(std::move(metric_name), options.curve()) {}

std::vector<PrecisionRecallPoints> PrecisionRecallCurve::curves() {
  std::vector<PrecisionRecallPoints> curves;
  const auto counts = threshold_counts();
  for (size_t c = 0; c < counts.size(); ++c) {
    const auto& curve = counts[c];
    // The exact curve's origin (nothing predicted) is left out: the end point stands for it.
    const int64_t first = binned() ? 0 : 1;
    const auto tps = curve.tps.slice(0, first).flip(0);
    const auto predicted = tps + curve.fps.slice(0, first).flip(0);
    const auto precision = at::where(predicted.gt(0), tps / predicted, at::zeros_like(tps));
    if (curve.positives == 0) {
      warn(fmt::format("{}: {} has no positive sample; its recall is NaN at every threshold",
                       name(), curve_name(static_cast<int64_t>(c))));
    }
    const auto recall = curve.positives > 0 ? tps / curve.positives : at::full_like(tps, NAN);
    curves.push_back({at::cat({precision, at::ones({1}, tps.options())}),
                      at::cat({recall, at::zeros({1}, tps.options())}),
                      curve.thresholds.slice(0, first).flip(0)});
  }
  return curves;
}

at::Tensor PrecisionRecallCurve::compute_value() {
  std::vector<std::pair<at::Tensor, at::Tensor>> points;
  for (auto& curve : curves()) points.emplace_back(curve.precision, curve.recall);
  return stack_curves(points, "PrecisionRecallCurve::curves()");
}

}  // namespace fulgur::metrics
