#pragma once
// JensenShannonDivergence (torchmetrics'): JS(p, q) = KL(p || m) / 2 + KL(q || m) / 2 with
// m = (p + q) / 2, for each row of p and q ([N, D] each), reduced over the rows
// (RowReduction): "mean" (torchmetrics' default), "sum" or "none". Symmetric and at most ln 2.
// Each row is normalised to sum to 1 first; with log_prob, p and q are log-probabilities,
// taken as they are. States: "measures" (and "total").
#include <optional>

#include "fulgur/metrics/kl_divergence.h"
#include "fulgur/metrics/row_reduction.h"

namespace fulgur::metrics {

// The same options as KLDivergence: .log_prob and .reduction = "mean".
using JensenShannonDivergenceOptions = KLDivergenceOptions;

class JensenShannonDivergence : public RowReduction {
 public:
  // Raises ConfigError for an unknown reduction.
  explicit JensenShannonDivergence(JensenShannonDivergenceOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor row_values(const at::Tensor& p, const at::Tensor& q) const override;

 private:
  bool log_prob_;
};

}  // namespace fulgur::metrics
