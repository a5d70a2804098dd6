#include "fulgur/metrics/precision.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

Precision::Precision(ClassificationOptions options) : StatScores("Precision", std::move(options)) {}

at::Tensor Precision::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                            const at::Tensor& fn) const {
  (void)tn;
  (void)fn;
  return safe_divide(tp, tp + fp);
}

}  // namespace fulgur::metrics
