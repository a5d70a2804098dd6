#pragma once
// RootMeanSquaredErrorUsingSlidingWindow (torchmetrics' RMSE-SW): for [N, C, H, W] images, the
// RMSE under a window_size x window_size box around each pixel (the image mirrored at its
// border, scipy's "reflect"), averaged over the channels and the pixels left after cropping
// round(window_size / 2) from each border, then over the images. States: "rmse_val_sum" (the
// per-image values summed) and "total_images".
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct RootMeanSquaredErrorUsingSlidingWindowOptions {
  int64_t window_size = 8;
};

class RootMeanSquaredErrorUsingSlidingWindow : public Metric {
 public:
  // Raises ConfigError unless window_size is positive.
  explicit RootMeanSquaredErrorUsingSlidingWindow(
      RootMeanSquaredErrorUsingSlidingWindowOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  int64_t window_size_;
  StateId rmse_sum_, images_;
};

}  // namespace fulgur::metrics
