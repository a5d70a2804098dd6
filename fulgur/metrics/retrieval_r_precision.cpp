#include "fulgur/metrics/retrieval_r_precision.h"

#include <fmt/format.h>

#include <algorithm>

#include "fulgur/errors.h"

namespace fulgur::metrics {

RetrievalRPrecision::RetrievalRPrecision(RetrievalOptions options)
    : RetrievalMetric("RetrievalRPrecision", std::move(options)) {
  if (this->options().top_k) {
    throw ConfigError(fmt::format(
        "RetrievalRPrecision(top_k={}) is not valid; its cut-off is each query's number of "
        "relevant documents",
        *this->options().top_k));
  }
}

double RetrievalRPrecision::query_score(const RankedQuery& query) const {
  const auto relevant = [](double r) { return r > 0; };
  const auto r = std::count_if(query.relevance.begin(), query.relevance.end(), relevant);
  return static_cast<double>(
             std::count_if(query.relevance.begin(), query.relevance.begin() + r, relevant)) /
         static_cast<double>(r);
}

}  // namespace fulgur::metrics
