#pragma once
// StructuralSimilarityIndexMeasure (torchmetrics' SSIM): for each image of [N, C, H, W] (or
// volume of [N, C, D, H, W]), the mean over its pixels and channels of
//   (2 mu_p mu_t + c1)(2 sigma_pt + c2) / ((mu_p^2 + mu_t^2 + c1)(sigma_p^2 + sigma_t^2 + c2)),
// the local means, variances and covariance taken under a window around each pixel: a
// Gaussian of `sigma` (truncated at 3.5 sigma, so its size is 2 round(3.5 sigma) + 1 and
// kernel_size is not used) or, without gaussian_kernel, a uniform kernel_size box. The images
// are reflect-padded by half the window, so every pixel counts, as torchmetrics' current SSIM.
// c1 = (k1 data_range)^2, c2 = (k2 data_range)^2; without data_range, each batch's own
// (the larger of preds' and target's max - min, read to the host). Reduced over the images by
// `reduction`: "elementwise_mean", "sum", or "none" (a [N] tensor of every image seen).
// States: "similarity" (summed, or every image's under "none") and "total" (the images).
#include <optional>

#include "fulgur/metrics/image/structural_similarity.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class StructuralSimilarityIndexMeasure : public Metric {
 public:
  // Raises ConfigError for bad options (check_similarity_options).
  explicit StructuralSimilarityIndexMeasure(StructuralSimilarityIndexMeasureOptions options = {});
  bool is_scalar() const override { return options_.reduction != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StructuralSimilarityIndexMeasureOptions options_;
  StateId similarity_, total_;
};

}  // namespace fulgur::metrics
