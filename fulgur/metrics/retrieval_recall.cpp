#include "fulgur/metrics/retrieval_recall.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {

RetrievalRecall::RetrievalRecall(RetrievalOptions options)
    : RetrievalMetric("RetrievalRecall", std::move(options)) {}

double RetrievalRecall::query_score(const RankedQuery& query) const {
  const int64_t k = cutoff(std::ssize(query.relevance));
  const auto relevant = [](double r) { return r > 0; };
  return static_cast<double>(
             std::count_if(query.relevance.begin(), query.relevance.begin() + k, relevant)) /
         static_cast<double>(
             std::count_if(query.relevance.begin(), query.relevance.end(), relevant));
}

}  // namespace fulgur::metrics
