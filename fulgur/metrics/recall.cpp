#include "fulgur/metrics/recall.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

Recall::Recall(ClassificationOptions options) : StatScores("Recall", std::move(options)) {}

at::Tensor Recall::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                         const at::Tensor& fn) const {
  (void)fp;
  (void)tn;
  return safe_divide(tp, tp + fn);
}

}  // namespace fulgur::metrics
