#pragma once
// RetrievalFallOut (torchmetrics'): the share of a query's irrelevant documents that made its
// top_k; lower is better. A query without an irrelevant document is the empty one here, scored
// 1 by default (empty_target_action "pos", as torchmetrics).
// Options and states: RetrievalMetric's.
#include <optional>

#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalFallOut : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalFallOut(RetrievalOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  double query_score(const RankedQuery& query) const override;
  bool scorable(const RankedQuery& query) const override;
  const char* empty_query() const override { return "no irrelevant document"; }
};

}  // namespace fulgur::metrics
