#pragma once
// ErrorRelativeGlobalDimensionlessSynthesis (torchmetrics' ERGAS, for pan-sharpened images):
// for each image of [N, C, H, W], 100 / ratio * sqrt(the mean over the C bands of
// (RMSE_band / mean of the target's band)^2), where ratio is the high to low resolution ratio;
// reduced over the images by `reduction`: "elementwise_mean", "sum" or "none" (a [N] tensor of
// every image's score, a cat state). States: "sum_ergas" (or "ergas_list") and "total".
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct ErrorRelativeGlobalDimensionlessSynthesisOptions {
  double ratio = 4;
  std::string reduction = "elementwise_mean";
};

class ErrorRelativeGlobalDimensionlessSynthesis : public Metric {
 public:
  // Raises ConfigError for a ratio that is not positive or an unknown reduction.
  explicit ErrorRelativeGlobalDimensionlessSynthesis(
      ErrorRelativeGlobalDimensionlessSynthesisOptions options = {});
  bool is_scalar() const override { return reduction_ != "none"; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  double ratio_;
  std::string reduction_;
  StateId scores_, images_;
};

}  // namespace fulgur::metrics
