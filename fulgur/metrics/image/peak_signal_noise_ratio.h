#pragma once
// PeakSignalNoiseRatio (torchmetrics'): 10 log10(data_range^2 / MSE) (the factor 10 / ln(base)
// times ln of the ratio for another base). Without dim, one MSE over every pixel seen: the
// states are the squared error's sum "sum_squared_error" and the pixel count "total". With dim
// (e.g. {1, 2, 3} of [N, C, H, W]: one PSNR per image), the MSE is taken over those dimensions
// of each batch and every such group is kept (cat states); compute() gives each group's PSNR,
// reduced by `reduction` ("elementwise_mean", "sum" or "none": the [groups] values). Without
// dim the reduction has nothing to reduce and is ignored, as torchmetrics warns. Integer
// inputs count as floats.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/metrics/image/image_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct PeakSignalNoiseRatioOptions {
  DataRange data_range = 0.0;  // required: 1.0, 255.0, or a (min, max) pair to clamp to
  double base = 10.0;
  std::string reduction = "elementwise_mean";  // with dim: "elementwise_mean", "sum", "none"
  std::vector<int64_t> dim;                    // empty: one MSE over everything
};

class PeakSignalNoiseRatio : public Metric {
 public:
  // Raises ConfigError without a positive data_range, for a base that is not positive or is
  // 1, or for an unknown reduction.
  explicit PeakSignalNoiseRatio(PeakSignalNoiseRatioOptions options);
  bool is_scalar() const override { return options_.dim.empty() || options_.reduction != "none"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  PeakSignalNoiseRatioOptions options_;
  double span_;
  StateId squared_error_, total_;
};

}  // namespace fulgur::metrics
