#pragma once
// EditDistance (torchmetrics'): the character-level Levenshtein distance from each reference
// to its prediction (insertions and deletions cost 1, substitutions substitution_cost),
// reduced over the pairs by `reduction`: "mean" (default), "sum", or "none" (a [N] tensor of
// every pair's distance, a cat state "edit_scores_list"). States: "edit_scores" and
// "num_elements".
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/text/text_metric.h"

namespace fulgur::metrics {

struct EditDistanceOptions {
  int64_t substitution_cost = 1;
  std::string reduction = "mean";  // "mean", "sum" or "none"
};

class EditDistance : public TextMetric {
 public:
  // Raises ConfigError for a negative substitution_cost or an unknown reduction.
  explicit EditDistance(EditDistanceOptions options = {});
  bool is_scalar() const override { return options_.reduction != "none"; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& counts, const at::Tensor& unused) override;
  at::Tensor compute_value() override;
  void count(const std::u32string& pred, const std::u32string& target,
             double* counts) const override;

 private:
  EditDistanceOptions options_;
  StateId scores_, pairs_;
};

}  // namespace fulgur::metrics
