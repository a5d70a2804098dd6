#include "fulgur/metrics/retrieval_map.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {

RetrievalMAP::RetrievalMAP(RetrievalOptions options)
    : RetrievalMetric("RetrievalMAP", std::move(options)) {}

double RetrievalMAP::query_score(const RankedQuery& query) const {
  int64_t hits = 0;
  double sum = 0;
  for (int64_t i = 0; i < cutoff(std::ssize(query.relevance)); ++i) {
    if (query.relevance[i] > 0) sum += static_cast<double>(++hits) / static_cast<double>(i + 1);
  }
  return hits > 0 ? sum / static_cast<double>(hits) : 0.0;
}

}  // namespace fulgur::metrics
