#pragma once
// CosineSimilarity (torchmetrics'): the cosine of the angle between each row of preds and the
// same row of target ([N, D] each), reduced over the rows (RowReduction): "sum" (torchmetrics'
// default), "mean", or "none". States: "similarity" (and "total"). A zero row gives NaN.
#include <optional>
#include <string>

#include "fulgur/metrics/row_reduction.h"

namespace fulgur::metrics {

struct CosineSimilarityOptions {
  std::string reduction = "sum";  // "sum", "mean" or "none"
};

class CosineSimilarity : public RowReduction {
 public:
  // Raises ConfigError for an unknown reduction.
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor row_values(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
