#include "fulgur/metrics/average_precision.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

AveragePrecision::AveragePrecision(AveragePrecisionOptions options)
    : CurveMetric("AveragePrecision", std::move(options)) {}

double AveragePrecision::binary_score(const at::Tensor& scores, const at::Tensor& positives,
                                      const std::string& what) const {
  const auto pos = positives.sum().item<double>();
  if (pos == 0) {
    warn(
        fmt::format("AveragePrecision: {} has no positive sample; its recall is undefined and it "
                    "scores NaN",
                    what));
    return std::nan("");
  }
  const auto counts = threshold_counts(scores, positives);
  const auto precision = counts.tps / (counts.tps + counts.fps);
  // Each point's recall gain; the first gains over recall 0.
  const auto recall = counts.tps / pos;
  const auto gains = at::diff(recall, 1, 0, at::zeros({1}, recall.options()));
  return (gains * precision).sum().item<double>();
}

}  // namespace fulgur::metrics
