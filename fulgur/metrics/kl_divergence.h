#pragma once
// KLDivergence (torchmetrics'): KL(p || q) = sum_i p_i log(p_i / q_i) of each row of p (the
// first argument to update) against the same row of q ([N, D] each), reduced over the rows
// (RowReduction): "mean" (torchmetrics' default), "sum" or "none". Each row is normalised to
// sum to 1 first, as scipy's entropy(p, q); p_i = 0 adds 0, and q_i = 0 under p_i > 0 gives
// inf. With log_prob, p and q are log-probabilities, taken as they are. States: "measures"
// (and "total").
#include <optional>
#include <string>

#include "fulgur/metrics/row_reduction.h"

namespace fulgur::metrics {

struct KLDivergenceOptions {
  bool log_prob = false;           // p and q hold log-probabilities
  std::string reduction = "mean";  // "mean", "sum" or "none"
};

class KLDivergence : public RowReduction {
 public:
  // Raises ConfigError for an unknown reduction.
  explicit KLDivergence(KLDivergenceOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor row_values(const at::Tensor& p, const at::Tensor& q) const override;

 private:
  bool log_prob_;
};

}  // namespace fulgur::metrics
