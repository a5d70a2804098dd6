#pragma once
// CohenKappa (torchmetrics'): the agreement between predicted and true classes beyond chance,
// 1 - sum(w C) / sum(w E), where C is the confusion matrix, E the counts expected from its
// row and column sums alone (t_i p_j / n), and w the disagreement weights: "none" (every
// disagreement 1), "linear" (|i - j|) or "quadratic" ((i - j)^2), for ordered classes.
// When sum(w E) is 0 (one class only, in both target and preds) the value is NaN, as
// torchmetrics and sklearn's cohen_kappa_score.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/confusion_matrix.h"

namespace fulgur::metrics {

struct CohenKappaOptions {
  std::string task;                     // required: "binary" or "multiclass"
  double threshold = 0.5;               // binary: a probability above it is class 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::string weights = "none";         // "none", "linear" or "quadratic"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class CohenKappa : public ConfusionMatrix {
 public:
  // Raises ConfigError for a bad task, num_classes, threshold or weights.
  explicit CohenKappa(CohenKappaOptions options);
  bool is_scalar() const override { return true; }
  std::optional<bool> higher_is_better() const override { return true; }
  const std::string& weights() const { return weights_; }

 protected:
  at::Tensor compute_value() override;

 private:
  std::string weights_;
};

}  // namespace fulgur::metrics
