#include "fulgur/metrics/retrieval_fall_out.h"

#include <algorithm>
#include <iterator>

namespace fulgur::metrics {
namespace {
bool irrelevant(double r) { return r == 0; }
}  // namespace

RetrievalFallOut::RetrievalFallOut(RetrievalOptions options)
    : RetrievalMetric("RetrievalFallOut", std::move(options), "pos") {}

bool RetrievalFallOut::scorable(const RankedQuery& query) const {
  return std::any_of(query.relevance.begin(), query.relevance.end(), irrelevant);
}

double RetrievalFallOut::query_score(const RankedQuery& query) const {
  const int64_t k = cutoff(std::ssize(query.relevance));
  return static_cast<double>(
             std::count_if(query.relevance.begin(), query.relevance.begin() + k, irrelevant)) /
         static_cast<double>(
             std::count_if(query.relevance.begin(), query.relevance.end(), irrelevant));
}

}  // namespace fulgur::metrics
