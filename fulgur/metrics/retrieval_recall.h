#pragma once
// RetrievalRecall (torchmetrics'): the share of a query's relevant documents among its top_k.
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalRecall : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalRecall(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
