#pragma once
// SpectralAngleMapper (torchmetrics' SAM): for each pixel of [N, C, H, W] images (C >= 2
// bands), the angle in radians between the preds' and the target's spectra (their C values),
// arccos of the cosine similarity; reduced over every pixel of every image: "elementwise_mean"
// or "sum" (torchmetrics' "none", the per-pixel maps of every image, is not offered: it keeps
// every image). States: "sum_sam" and "numel".
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct SpectralAngleMapperOptions {
  std::string reduction = "elementwise_mean";  // or "sum"
};

class SpectralAngleMapper : public Metric {
 public:
  // Raises ConfigError for a reduction other than "elementwise_mean" and "sum".
  explicit SpectralAngleMapper(SpectralAngleMapperOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  std::string reduction_;
  StateId sum_, pixels_;
};

}  // namespace fulgur::metrics
