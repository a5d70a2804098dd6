#pragma once
// MultiScaleStructuralSimilarityIndexMeasure (torchmetrics' MS-SSIM): SSIM at len(betas)
// scales, each half the size of the one before (2x2, or 2x2x2 for volumes, average pooling).
// Per image, the product over the scales of cs_i^beta_i, where cs_i is the mean
// contrast-sensitivity term (2 sigma_pt + c2) / (sigma_p^2 + sigma_t^2 + c2) with half a window
// cropped from every border, except at the last scale, which takes the whole SSIM instead.
// `normalize`: "relu" (torchmetrics' default: negative terms count as 0), "simple" ((x + 1) / 2
// of every term) or none (a negative term makes a NaN, as in torchmetrics). The window,
// data_range (each scale's own range when none), k1, k2 and reduction are SSIM's. States:
// "similarity" (summed, or every image's under "none") and "total" (the images).
#include <optional>
#include <string>
#include <vector>

#include "fulgur/metrics/image/structural_similarity.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MultiScaleStructuralSimilarityIndexMeasureOptions {
  bool gaussian_kernel = true;
  double sigma = 1.5;
  int64_t kernel_size = 11;
  std::string reduction = "elementwise_mean";
  std::optional<DataRange> data_range;
  double k1 = 0.01;
  double k2 = 0.03;
  std::vector<double> betas = {0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
  std::optional<std::string> normalize = "relu";
};

class MultiScaleStructuralSimilarityIndexMeasure : public Metric {
 public:
  // Raises ConfigError for SSIM's bad options, no betas, or a normalize other than "relu",
  // "simple" or none.
  explicit MultiScaleStructuralSimilarityIndexMeasure(
      MultiScaleStructuralSimilarityIndexMeasureOptions options = {});
  bool is_scalar() const override { return ssim_.reduction != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // MetricError, as torchmetrics, when height or width is below 2^len(betas), or does not
  // exceed (kernel_size - 1) max(1, len(betas) - 1)^2.
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StructuralSimilarityIndexMeasureOptions ssim_;
  std::vector<double> betas_;
  std::optional<std::string> normalize_;
  StateId similarity_, total_;
};

}  // namespace fulgur::metrics
