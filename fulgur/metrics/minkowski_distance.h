#pragma once
// MinkowskiDistance (torchmetrics'): (sum |preds - target|^p)^(1/p) over every element seen, the
// distance between preds and target as two long vectors (p = 1 the Manhattan, p = 2 the
// Euclidean distance). State: the float64 sum "minkowski_dist_sum".
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MinkowskiDistanceOptions {
  double p = 2;  // required by torchmetrics; at least 1 (below 1 it is not a distance)
};

class MinkowskiDistance : public Metric {
 public:
  // Raises ConfigError for p < 1.
  explicit MinkowskiDistance(MinkowskiDistanceOptions options);
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  double p_;
  StateId sum_;
};

}  // namespace fulgur::metrics
