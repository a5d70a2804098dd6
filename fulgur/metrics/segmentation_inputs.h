#pragma once
// What the segmentation metrics (MeanIoU, DiceScore, GeneralizedDiceScore) share: torchmetrics'
// input_format. preds and target are [N, C, ...] one-hot masks or scores (the argmax over
// dimension 1), or [N, ...] class indices ([H, W] and [L] indices under "index" are one
// sample); "mixed" takes one of each.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>

namespace fulgur::metrics {

// ConfigError naming `metric` for num_classes < 1 or an input_format other than "one-hot",
// "index" or "mixed".
void check_segmentation_options(const std::string& metric, int64_t num_classes,
                                const std::string& input_format);

// The classes scored: num_classes, less the background (class 0) when it is left out and
// there is another class.
int64_t scored_classes(int64_t num_classes, bool include_background);

// preds and target as int64 [N, scored_classes, ...] 0/1 masks: indices one-hot encoded,
// scores by their argmax, one-hot masks as they are (any nonzero a 1), class 0 dropped
// unless include_background. MetricError naming `metric` for shapes that do not fit
// input_format, float indices, or indices outside [0, num_classes).
std::pair<at::Tensor, at::Tensor> segmentation_masks(const std::string& metric,
                                                     const at::Tensor& preds,
                                                     const at::Tensor& target, int64_t num_classes,
                                                     bool include_background,
                                                     const std::string& input_format);

}  // namespace fulgur::metrics
