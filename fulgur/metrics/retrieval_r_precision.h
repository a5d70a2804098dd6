#pragma once
// RetrievalRPrecision (torchmetrics'): the precision among a query's R best-scored documents,
// R its number of relevant documents. It takes no top_k (R is the cut-off): a top_k is a
// ConfigError.
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalRPrecision : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalRPrecision(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
