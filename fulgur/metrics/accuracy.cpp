#include "fulgur/metrics/accuracy.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

Accuracy::Accuracy(ClassificationOptions options) : Accuracy("Accuracy", std::move(options)) {}

Accuracy::Accuracy(std::string name, ClassificationOptions options)
    : StatScores(std::move(name), std::move(options)) {}

at::Tensor Accuracy::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                           const at::Tensor& fn) const {
  // Binary and per label: the share of right answers; multiclass: the share of samples whose
  // class is predicted (recall).
  if (task() != Task::Multiclass) return safe_divide(tp + tn, tp + tn + fp + fn);
  (void)fp;
  (void)tn;
  return safe_divide(tp, tp + fn);
}

}  // namespace fulgur::metrics
