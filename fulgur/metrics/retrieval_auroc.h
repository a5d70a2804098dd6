#pragma once
// RetrievalAUROC (torchmetrics'): per query, the area under the ROC curve of its top_k
// documents (all of them without a top_k): the share of (relevant, irrelevant) pairs whose
// relevant document scores higher, a tie counting half, as sklearn's roc_auc_score. A query
// whose top_k holds only relevant (or only irrelevant) documents scores 0, as torchmetrics.
// Options, states and the empty-query rule: RetrievalMetric's. torchmetrics' max_fpr is not
// offered.
#include "fulgur/metrics/retrieval_metric.h"

namespace fulgur::metrics {

class RetrievalAUROC : public RetrievalMetric {
 public:
  // Raises ConfigError for bad options.
  explicit RetrievalAUROC(RetrievalOptions options = {});

 protected:
  double query_score(const RankedQuery& query) const override;
};

}  // namespace fulgur::metrics
