#pragma once
// ClusterAccuracy (torchmetrics'): the accuracy of cluster ids against classes once each
// predicted cluster is renamed to the class it best stands for, the renaming that maximizes the
// matches (a linear sum assignment on the confusion matrix, scipy's linear_sum_assignment).
// preds and target are 1-D labels in [0, num_classes); the state is the [num_classes,
// num_classes] confusion matrix, summed across ranks.
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct ClusterAccuracyOptions {
  int64_t num_classes = 0;  // required: how many classes (and clusters) there are
  // Check that the labels lie in [0, num_classes) (one read from the device per update).
  bool validate_args = true;
};

class ClusterAccuracy : public Metric {
 public:
  // Raises ConfigError unless num_classes >= 1.
  explicit ClusterAccuracy(ClusterAccuracyOptions options);
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  ClusterAccuracyOptions options_;
  StateId confmat_;  // [target class, predicted cluster]
};

}  // namespace fulgur::metrics
