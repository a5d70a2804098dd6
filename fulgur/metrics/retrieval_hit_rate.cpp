#include "fulgur/metrics/retrieval_hit_rate.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {

RetrievalHitRate::RetrievalHitRate(RetrievalOptions options)
    : RetrievalMetric("RetrievalHitRate", std::move(options)) {}

double RetrievalHitRate::query_score(const RankedQuery& query) const {
  const int64_t k = cutoff(std::ssize(query.relevance));
  return std::any_of(query.relevance.begin(), query.relevance.begin() + k,
                     [](double r) { return r > 0; })
             ? 1.0
             : 0.0;
}

}  // namespace fulgur::metrics
