#pragma once
// RetrievalMRR (torchmetrics'): the mean reciprocal rank, 1 / the rank of a query's first
// relevant document (0 when none is among the top_k).
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalMRR : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalMRR(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
