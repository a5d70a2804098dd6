#include "fulgur/metrics/multilabel_coverage_error.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

MultilabelCoverageError::MultilabelCoverageError(const MultilabelRankingOptions& options)
    : MultilabelRankingMetric("MultilabelCoverageError", options) {}

at::Tensor MultilabelCoverageError::sample_scores(const at::Tensor& preds, const at::Tensor& target,
                                                  const at::Tensor&) const {
  // A sample without a true label has +inf as its lowest true score: nothing reaches it.
  const auto lowest_true =
      at::where(target, preds,
                at::full({}, std::numeric_limits<double>::infinity(), preds.options()))
          .amin(1, /*keepdim=*/true);
  return preds.ge(lowest_true).sum(1).to(at::kDouble);
}

}  // namespace fulgur::metrics
