#include "fulgur/metrics/specificity.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

Specificity::Specificity(ClassificationOptions options)
    : StatScores("Specificity", std::move(options)) {}

at::Tensor Specificity::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                              const at::Tensor& fn) const {
  (void)tp;
  (void)fn;
  return safe_divide(tn, tn + fp);
}

}  // namespace fulgur::metrics
