#include "fulgur/metrics/jaccard_index.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

JaccardIndex::JaccardIndex(JaccardIndexOptions o)
    : StatScores("JaccardIndex", {.task = std::move(o.task),
                                  .threshold = o.threshold,
                                  .num_classes = o.num_classes,
                                  .num_labels = o.num_labels,
                                  .average = std::move(o.average),
                                  .ignore_index = o.ignore_index,
                                  .validate_args = o.validate_args}) {}

at::Tensor JaccardIndex::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                               const at::Tensor& fn) const {
  (void)tn;
  return safe_divide(tp, tp + fp + fn);
}

}  // namespace fulgur::metrics
