#pragma once
// SpatialCorrelationCoefficient (torchmetrics' SCC): preds and target [N, C, H, W] (or
// grayscale [N, H, W]) are each high-pass filtered per channel (a 2-D convolution with
// high_pass_filter, the image mirrored at its border as scipy's "reflect", times 2 as
// torchmetrics), then correlated under a window_size x window_size box around each pixel
// (zeros outside the image): cov / (std_p std_t), 0 where either deviation is 0. The value is
// the mean over each image's pixels and channels, averaged over the images. Computed in
// float64 (torchmetrics: float32). States: "scc_score" (the per-image values summed), "total".
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct SpatialCorrelationCoefficientOptions {
  // A 2-D kernel; undefined: the Laplacian [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]].
  at::Tensor high_pass_filter;
  int64_t window_size = 8;
};

class SpatialCorrelationCoefficient : public Metric {
 public:
  // Raises ConfigError unless window_size is positive and high_pass_filter is 2-D and not
  // empty.
  explicit SpatialCorrelationCoefficient(SpatialCorrelationCoefficientOptions options = {});
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  at::Tensor high_pass(const at::Tensor& images) const;

  at::Tensor filter_;  // float64 [kh, kw], flipped for the convolution
  int64_t window_size_;
  StateId score_, total_;
};

}  // namespace fulgur::metrics
