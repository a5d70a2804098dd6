#pragma once
// GeneralizedDiceScore (torchmetrics' segmentation.GeneralizedDiceScore): per sample,
//   2 sum_c w_c |P_c ∩ T_c| / sum_c w_c (|P_c| + |T_c|),
// with class weights w_c = 1 / |T_c|^2 ("square"), 1 / |T_c| ("simple") or 1 ("linear"); a class
// absent from the target (an infinite weight) takes the sample's largest finite weight, as
// MONAI's generalized Dice, which torchmetrics follows (its port mixes up samples and classes
// there when their counts differ). per_class gives each class' weighted term alone. A sample
// with nothing to score counts 0. The mean over the samples; inputs as MeanIoU's (see
// segmentation_inputs.h). States: "score" (the samples' scores summed) and "samples".
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct GeneralizedDiceScoreOptions {
  int64_t num_classes = 0;  // required
  bool include_background = true;
  bool per_class = false;
  std::string weight_type = "square";  // "square", "simple" or "linear"
  std::string input_format = "one-hot";
};

class GeneralizedDiceScore : public Metric {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown weight_type or input_format.
  explicit GeneralizedDiceScore(GeneralizedDiceScoreOptions options);
  bool is_scalar() const override { return !options_.per_class; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  GeneralizedDiceScoreOptions options_;
  StateId score_, samples_;
};

}  // namespace fulgur::metrics
