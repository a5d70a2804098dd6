#pragma once
// MeanIoU (torchmetrics' segmentation.MeanIoU): the intersection over union of each class'
// predicted and true masks, taken per sample and averaged over the samples in which the class
// appears (in either mask). preds and target are [N, C, ...] one-hot masks or scores (the
// argmax over dimension 1), or [N, ...] class indices (see segmentation_inputs.h).
// The states are a per-class sum of scores and count of samples: constant memory, summed across
// ranks.
#include <cstdint>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MeanIoUOptions {
  int64_t num_classes = 0;         // required (torchmetrics may read it off one-hot inputs)
  bool include_background = true;  // false: class 0 is left out
  // A score per class ([classes], -1 for a class that never appeared) instead of the mean over
  // every (sample, class) pair in which the class appeared.
  bool per_class = false;
  // "one-hot": both [N, C, ...]; "index": both [N, ...]; "mixed": one of each.
  std::string input_format = "one-hot";
};

class MeanIoU : public Metric {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown input_format.
  explicit MeanIoU(MeanIoUOptions options);
  bool is_scalar() const override { return !options_.per_class; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  MeanIoUOptions options_;
  StateId score_, present_;  // per class: the samples' IoU summed, and how many samples had it
};

}  // namespace fulgur::metrics
