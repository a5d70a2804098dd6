#pragma once
// RelativeAverageSpectralError (torchmetrics' RASE): for [N, C, H, W] images of one shape,
//   100 / M * sqrt(mean over channels of RMSE_map^2),
// per pixel, averaged over the pixels left after cropping round(window_size / 2) from each
// border. RMSE_map is RMSE-SW's map averaged over the images; M is the target's box mean
// averaged over the images and channels and, as in torchmetrics (and sewar, which it follows),
// divided by window_size^2 once more, which scales RASE by window_size^2 against the paper's.
// The maps are per pixel, so every image's two maps are kept, flattened, as cat states
// "rmse_map" and "target_mean" (the memory of torchmetrics' kept preds and target), with each
// image's [C, H, W] in "image_shape".
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct RelativeAverageSpectralErrorOptions {
  int64_t window_size = 8;
};

class RelativeAverageSpectralError : public Metric {
 public:
  // Raises ConfigError unless window_size is positive.
  explicit RelativeAverageSpectralError(RelativeAverageSpectralErrorOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  // MetricError when the images seen differ in shape.
  at::Tensor compute_value() override;

 private:
  int64_t window_size_;
  StateId rmse_map_, target_mean_, image_shape_;
};

}  // namespace fulgur::metrics
