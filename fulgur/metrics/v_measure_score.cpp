#include "fulgur/metrics/v_measure_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

VMeasureScore::VMeasureScore(VMeasureScoreOptions options)
    : ClusterLabelMetric("VMeasureScore"), options_(options) {
  if (!(options_.beta > 0) || !std::isfinite(options_.beta)) {
    throw ConfigError(
        fmt::format("VMeasureScore(beta={}) must be a positive number", options_.beta));
  }
}

double VMeasureScore::score(const at::Tensor& contingency) const {
  const auto [h, c] = homogeneity_completeness(contingency);
  if (h + c == 0) return 0.0;
  return (1 + options_.beta) * h * c / (options_.beta * h + c);
}

}  // namespace fulgur::metrics
