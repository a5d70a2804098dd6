#pragma once
// CosineSimilarity (torchmetrics'): the cosine of the angle between each row of preds and the
// same row of target ([N, D] each), reduced over the rows: "sum" (torchmetrics' default),
// "mean", or "none" (a [N] tensor of every row seen). sum and mean keep two sums, so memory
// stays constant; none keeps each row's value (a cat state). A zero row gives NaN.
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct CosineSimilarityOptions {
  std::string reduction = "sum";  // "sum", "mean" or "none"
};

class CosineSimilarity : public Metric {
 public:
  // Raises ConfigError for an unknown reduction.
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  bool is_scalar() const override { return options_.reduction != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  CosineSimilarityOptions options_;
  StateId similarity_, total_;  // none: similarity_ is every row's value; else their sum and
                                // total_ the row count
};

}  // namespace fulgur::metrics
