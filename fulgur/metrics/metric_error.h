#pragma once
// MetricError: a metric was fed inputs it cannot score (shapes that disagree, labels outside
// [0, num_classes), NaN predictions), or was used out of order (compute() before any
// update(), update() while synced). The message names the metric and says how to fix it.
// Bad options at construction are a ConfigError instead, as everywhere in fulgur.
#include "fulgur/errors.h"

namespace fulgur::metrics {

class MetricError : public Error {
 public:
  using Error::Error;
};

}  // namespace fulgur::metrics
