#pragma once
// RelativeSquaredError (torchmetrics'): the residual sum of squares over the total sum of squares
// about the target's mean, RSS / TSS (1 - R2 on one output), or its square root with squared =
// false; with num_outputs > 1, the mean over the outputs. R2Score's merged sums, so the synced
// value is that of all samples. A constant target's TSS counts as float64's epsilon, as
// torchmetrics clamps it. Fewer than 2 samples raise MetricError.
#include <cstdint>
#include <optional>

#include "fulgur/metrics/r2_score.h"

namespace fulgur::metrics {

struct RelativeSquaredErrorOptions {
  int64_t num_outputs = 1;
  bool squared = true;  // false: the root relative squared error
};

class RelativeSquaredError : public R2Score {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit RelativeSquaredError(RelativeSquaredErrorOptions options = {});
  bool is_scalar() const override { return true; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor compute_value() override;

 private:
  bool squared_;
};

}  // namespace fulgur::metrics
