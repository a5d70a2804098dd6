#include "fulgur/metrics/average_precision.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

AveragePrecision::AveragePrecision(AveragePrecisionOptions options)
    : CurveScore("AveragePrecision", std::move(options)) {}

double AveragePrecision::score(const ThresholdCounts& curve, const std::string& what) const {
  if (curve.positives == 0) {
    warn(
        fmt::format("AveragePrecision: {} has no positive sample; its recall is undefined and it "
                    "scores NaN",
                    what));
    return std::nan("");
  }
  const auto predicted = curve.tps + curve.fps;
  // A point no sample clears (the exact curve's origin, a binned threshold above every score)
  // has recall 0, so its precision of 1 gains nothing.
  const auto precision =
      at::where(predicted.gt(0), curve.tps / predicted, at::ones_like(predicted));
  // Each point's recall gain; the first gains over recall 0.
  const auto recall = curve.tps / curve.positives;
  const auto gains = at::diff(recall, 1, 0, at::zeros({1}, recall.options()));
  return (gains * precision).sum().item<double>();
}

}  // namespace fulgur::metrics
