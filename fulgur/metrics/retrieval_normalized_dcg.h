#pragma once
// RetrievalNormalizedDCG (torchmetrics'): a query's discounted cumulative gain over its top_k,
// sum of relevance / log2(rank + 1), divided by the best order's. Targets are non-negative
// relevance grades (integers or floats), used as the gain as they are. Documents whose scores
// tie share their ranks' discounts (the mean gain of the tied group at each of its ranks), as
// sklearn's ndcg_score and torchmetrics, so the value does not depend on arrival order.
// Options, states and the empty-query rule (a query whose grades are all 0): RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalNormalizedDCG : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalNormalizedDCG(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
  bool graded() const override { return true; }
};

}  // namespace fulgur::metrics
