#pragma once
// What the classification tests share: feeding a data set in uneven batches, and matching an
// exception whose message names the metric and the problem.
#include <gmock/gmock.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::testing {

// Feeds preds/target in three uneven batches and returns compute().
inline at::Tensor feed(metrics::Metric& metric, const at::Tensor& preds, const at::Tensor& target) {
  const int64_t n = preds.size(0);
  const std::vector<int64_t> cuts{0, n / 3, n / 3 + n / 5, n};
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    metric.update(preds.slice(0, cuts[i], cuts[i + 1]), target.slice(0, cuts[i], cuts[i + 1]));
  }
  return metric.compute();
}

// An E whose message holds both a and b.
template <typename E>
auto Throws(const std::string& a, const std::string& b) {
  return ::testing::ThrowsMessage<E>(
      ::testing::AllOf(::testing::HasSubstr(a), ::testing::HasSubstr(b)));
}

}  // namespace fulgur::testing
