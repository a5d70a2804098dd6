#pragma once
// DiceScore (torchmetrics' segmentation.DiceScore): 2 |P ∩ T| / (|P| + |T|) of each class'
// predicted and true masks (inputs as MeanIoU's, see segmentation_inputs.h). `average` over the
// classes: "micro" (the sums over the classes divided), "macro" (the mean of the classes'
// scores), "weighted" (weighted by each class' target pixels) or "none" (one per class).
// `aggregation_level` "samplewise" scores each sample and takes the mean over the samples;
// "global" scores the sums over every sample. A class that is in neither mask (a sample with
// nothing to score) is NaN and left out of the means, as in torchmetrics. The states are sums
// per class (or of the samples' scores and their count): constant memory, summed across ranks.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct DiceScoreOptions {
  int64_t num_classes = 0;  // required
  bool include_background = true;
  std::string average = "macro";                 // "micro", "macro", "weighted" or "none"
  std::string aggregation_level = "samplewise";  // or "global"
  std::string input_format = "one-hot";          // "one-hot", "index" or "mixed"
};

class DiceScore : public Metric {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown average, aggregation_level or
  // input_format.
  explicit DiceScore(DiceScoreOptions options);
  bool is_scalar() const override { return options_.average != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  // torchmetrics' score of each row of per-class sums [rows, C]: [rows], or [rows, C] for "none".
  at::Tensor score_rows(const at::Tensor& numerator, const at::Tensor& denominator,
                        const at::Tensor& support) const;

  DiceScoreOptions options_;
  // samplewise: the samples' scores summed (NaNs left out) and their count; global: the
  // per-class sums of 2 |P ∩ T|, |P| + |T| and |T|.
  StateId first_, second_, support_;
};

}  // namespace fulgur::metrics
