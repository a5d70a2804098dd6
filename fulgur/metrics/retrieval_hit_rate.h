#pragma once
// RetrievalHitRate (torchmetrics'): 1 when a relevant document is among a query's top_k, else
// 0; the share of such queries.
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalHitRate : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalHitRate(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
