#pragma once
// torchmetrics' SSIM of each image, shared by StructuralSimilarityIndexMeasure and
// MultiScaleStructuralSimilarityIndexMeasure.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/image/image_inputs.h"

namespace fulgur::metrics {

struct StructuralSimilarityIndexMeasureOptions {
  bool gaussian_kernel = true;
  double sigma = 1.5;
  int64_t kernel_size = 11;  // the uniform window's size (odd)
  std::string reduction = "elementwise_mean";
  std::optional<DataRange> data_range;  // none: each batch's own range
  double k1 = 0.01;
  double k2 = 0.03;
};

// ConfigError naming `metric` for an even or non-positive kernel_size, a sigma that is not
// positive, a data_range that is not positive, or an unknown reduction.
void check_similarity_options(const std::string& metric,
                              const StructuralSimilarityIndexMeasureOptions& options);

// The window's size: 2 round(3.5 sigma) + 1 for the Gaussian, else kernel_size.
int64_t similarity_window_size(const StructuralSimilarityIndexMeasureOptions& options);

// Per image of preds and target (float64 [N, C, H, W] or [N, C, D, H, W], N > 0), [N] each:
// the mean of the SSIM map, and the mean of its contrast-sensitivity part
// (2 sigma_pt + c2) / (sigma_p^2 + sigma_t^2 + c2) with half a window cropped from every
// border (as torchmetrics, for MS-SSIM). MetricError naming `metric` for other shapes or images
// no larger than half the window.
struct SimilarityScores {
  at::Tensor similarity, contrast_sensitivity;
};
SimilarityScores similarity_scores(const std::string& metric, at::Tensor preds, at::Tensor target,
                                   const StructuralSimilarityIndexMeasureOptions& options);

}  // namespace fulgur::metrics
