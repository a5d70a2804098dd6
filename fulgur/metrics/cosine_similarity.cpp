#include "fulgur/metrics/cosine_similarity.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

CosineSimilarity::CosineSimilarity(CosineSimilarityOptions options)
    : RowReduction("CosineSimilarity", std::move(options.reduction), "similarity") {}

at::Tensor CosineSimilarity::row_values(const at::Tensor& preds, const at::Tensor& target) const {
  return (preds * target).sum(1) / (preds.norm(2, 1) * target.norm(2, 1));
}

}  // namespace fulgur::metrics
