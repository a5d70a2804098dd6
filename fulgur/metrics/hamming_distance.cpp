#include "fulgur/metrics/hamming_distance.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

HammingDistance::HammingDistance(ClassificationOptions options)
    : Accuracy("HammingDistance", std::move(options)) {}

at::Tensor HammingDistance::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                                  const at::Tensor& fn) const {
  return 1 - Accuracy::score(tp, fp, tn, fn);
}

}  // namespace fulgur::metrics
