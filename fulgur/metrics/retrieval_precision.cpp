#include "fulgur/metrics/retrieval_precision.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {

RetrievalPrecision::RetrievalPrecision(RetrievalOptions options, bool adaptive_k)
    : RetrievalMetric("RetrievalPrecision", std::move(options)), adaptive_k_(adaptive_k) {}

double RetrievalPrecision::query_score(const RankedQuery& query) const {
  const int64_t documents = std::ssize(query.relevance);
  const int64_t k = cutoff(documents);
  const int64_t divisor = options().top_k && !adaptive_k_ ? *options().top_k : k;
  return static_cast<double>(std::count_if(query.relevance.begin(), query.relevance.begin() + k,
                                           [](double r) { return r > 0; })) /
         static_cast<double>(divisor);
}

}  // namespace fulgur::metrics
