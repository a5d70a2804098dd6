#include "fulgur/metrics/retrieval_mrr.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {

RetrievalMRR::RetrievalMRR(RetrievalOptions options)
    : RetrievalMetric("RetrievalMRR", std::move(options)) {}

double RetrievalMRR::query_score(const RankedQuery& query) const {
  for (int64_t i = 0; i < cutoff(std::ssize(query.relevance)); ++i) {
    if (query.relevance[i] > 0) return 1.0 / static_cast<double>(i + 1);
  }
  return 0.0;
}

}  // namespace fulgur::metrics
