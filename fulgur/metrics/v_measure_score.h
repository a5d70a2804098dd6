#pragma once
// VMeasureScore (torchmetrics', sklearn's v_measure_score): the weighted harmonic mean of
// homogeneity and completeness, (1 + beta) h c / (beta h + c); beta > 1 weighs completeness more.
// 0 when both are 0 (sklearn; torchmetrics returns 1 there).
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

struct VMeasureScoreOptions {
  double beta = 1.0;  // the weight of homogeneity in the harmonic mean
};

class VMeasureScore : public ClusterLabelMetric {
 public:
  // Raises ConfigError unless beta is a positive number.
  explicit VMeasureScore(VMeasureScoreOptions options = {});

 protected:
  double score(const at::Tensor& contingency) const override;

 private:
  VMeasureScoreOptions options_;
};

}  // namespace fulgur::metrics
