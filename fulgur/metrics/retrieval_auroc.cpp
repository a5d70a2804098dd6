#include "fulgur/metrics/retrieval_auroc.h"

#include <iterator>

namespace fulgur::metrics {

RetrievalAUROC::RetrievalAUROC(RetrievalOptions options)
    : RetrievalMetric("RetrievalAUROC", std::move(options)) {}

double RetrievalAUROC::query_score(const RankedQuery& query) const {
  const int64_t k = cutoff(std::ssize(query.relevance));
  // Down the ranking, group by tied score: each irrelevant document loses to every relevant
  // one above it, and ties with the relevant ones of its own score (half a win each).
  double relevant = 0, irrelevant = 0, wins = 0;
  for (int64_t begin = 0, end = 0; begin < k; begin = end) {
    double group_relevant = 0, group_irrelevant = 0;
    for (; end < k && query.scores[end] == query.scores[begin]; ++end) {
      (query.relevance[end] > 0 ? group_relevant : group_irrelevant) += 1;
    }
    wins += group_irrelevant * (relevant + group_relevant / 2);
    relevant += group_relevant;
    irrelevant += group_irrelevant;
  }
  if (relevant == 0 || irrelevant == 0) return 0.0;
  return wins / (relevant * irrelevant);
}

}  // namespace fulgur::metrics
