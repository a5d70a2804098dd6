#pragma once
// RetrievalMAP (torchmetrics'): the mean average precision. A query's average precision is the
// mean, over its relevant documents among the top_k, of the precision at each one's rank
// (sklearn's average_precision_score of the query when no top_k cuts and no scores tie).
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalMAP : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalMAP(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
