#pragma once
// UniversalImageQualityIndex (torchmetrics' UQI, Wang and Bovik): SSIM without its stabilising
// constants, (2 mu_p mu_t)(2 sigma_pt) / ((mu_p^2 + mu_t^2)(sigma_p^2 + sigma_t^2) + eps), under
// a Gaussian window of kernel_size and sigma around each pixel of [N, C, H, W] images; the
// border of half a window is left out, as torchmetrics. Reduced over every pixel and channel
// of every image: "elementwise_mean" or "sum" (torchmetrics' "none", the per-pixel maps of
// every image, is not offered: it keeps every image). eps is the machine epsilon of the
// inputs' dtype. States: "sum_uqi" and "numel".
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct UniversalImageQualityIndexOptions {
  int64_t kernel_size = 11;  // odd
  double sigma = 1.5;
  std::string reduction = "elementwise_mean";  // or "sum"
};

class UniversalImageQualityIndex : public Metric {
 public:
  // Raises ConfigError for an even or non-positive kernel_size, a sigma that is not positive,
  // or a reduction other than "elementwise_mean" and "sum".
  explicit UniversalImageQualityIndex(UniversalImageQualityIndexOptions options = {});
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  UniversalImageQualityIndexOptions options_;
  StateId sum_, pixels_;
};

}  // namespace fulgur::metrics
