#include "fulgur/metrics/retrieval_normalized_dcg.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <vector>

namespace fulgur::metrics {
namespace {
double discount(int64_t rank_index) { return 1.0 / std::log2(static_cast<double>(rank_index) + 2); }
}  // namespace

RetrievalNormalizedDCG::RetrievalNormalizedDCG(RetrievalOptions options)
    : RetrievalMetric("RetrievalNormalizedDCG", std::move(options)) {}

double RetrievalNormalizedDCG::query_score(const RankedQuery& query) const {
  const int64_t documents = std::ssize(query.relevance);
  const int64_t k = cutoff(documents);
  double dcg = 0;
  for (int64_t begin = 0, end = 0; begin < k; begin = end) {
    double gain = 0;
    while (end < documents && query.scores[end] == query.scores[begin])
      gain += query.relevance[end++];
    double discounts = 0;
    for (int64_t i = begin; i < std::min(end, k); ++i) discounts += discount(i);
    dcg += gain / static_cast<double>(end - begin) * discounts;
  }
  std::vector<double> best(query.relevance.begin(), query.relevance.end());
  std::sort(best.begin(), best.end(), std::greater<>());
  double ideal = 0;
  for (int64_t i = 0; i < k; ++i) ideal += best[i] * discount(i);
  return ideal > 0 ? dcg / ideal : 0.0;
}

}  // namespace fulgur::metrics
