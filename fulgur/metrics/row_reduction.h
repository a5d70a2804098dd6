#pragma once
// The metrics that score each row of [N, D] preds against the same row of target and reduce
// the rows (CosineSimilarity, KLDivergence), with torchmetrics' reductions: "sum", "mean", or
// "none" (a [N] tensor of every row seen). sum and mean keep two sums, so memory stays
// constant; none keeps each row's value (a cat state).
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class RowReduction : public Metric {
 public:
  bool is_scalar() const override { return reduction_ != "none"; }

 protected:
  // `state_name`: the rows' state, as torchmetrics calls it. ConfigError for an unknown
  // reduction.
  RowReduction(std::string name, std::string reduction, const std::string& state_name);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // Each row's value ([N]) from float64 [N, D] preds and target.
  virtual at::Tensor row_values(const at::Tensor& preds, const at::Tensor& target) const = 0;

 private:
  std::string reduction_;
  StateId rows_, total_;  // none: rows_ is every row's value; else their sum, total_ the count
};

}  // namespace fulgur::metrics
