#include "fulgur/metrics/negative_predictive_value.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

NegativePredictiveValue::NegativePredictiveValue(ClassificationOptions options)
    : StatScores("NegativePredictiveValue", std::move(options)) {}

at::Tensor NegativePredictiveValue::score(const at::Tensor& tp, const at::Tensor& fp,
                                          const at::Tensor& tn, const at::Tensor& fn) const {
  (void)tp;
  (void)fp;
  return safe_divide(tn, tn + fn);
}

}  // namespace fulgur::metrics
