#pragma once
// RetrievalPrecision (torchmetrics'): the share of relevant documents among a query's top_k
// (all of its documents without a top_k). A query with fewer than top_k documents is still
// divided by top_k, unless adaptive_k, which divides by its number of documents.
// Options, states and the empty-query rule: RetrievalMetric's.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalPrecision : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalPrecision(RetrievalOptions options = {}, bool adaptive_k = false);

 protected:
  double query_score(const RankedQuery& query) const override;

 private:
  bool adaptive_k_;
};

}  // namespace fulgur::metrics
