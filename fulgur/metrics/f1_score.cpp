#include "fulgur/metrics/f1_score.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

F1Score::F1Score(ClassificationOptions options) : StatScores("F1Score", std::move(options)) {}

at::Tensor F1Score::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                          const at::Tensor& fn) const {
  (void)tn;
  return safe_divide(2 * tp, 2 * tp + fp + fn);
}

}  // namespace fulgur::metrics
