#pragma once
// TotalVariation (torchmetrics'): for each image of [N, C, H, W], the sum of the absolute
// differences between vertically and between horizontally adjacent pixels (over the channels
// too); reduced over the images by `reduction`: "sum" (torchmetrics' default), "mean", or
// "none" (a [N] tensor of every image seen, a cat state "score_list"). update(img) takes the
// images alone. States: "score" (or "score_list") and "num_elements" (the images).
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct TotalVariationOptions {
  std::string reduction = "sum";  // "sum", "mean" or "none"
};

class TotalVariation : public Metric {
 public:
  // Raises ConfigError for an unknown reduction.
  explicit TotalVariation(TotalVariationOptions options = {});
  bool is_scalar() const override { return reduction_ != "none"; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& img, const at::Tensor& unused) override;
  at::Tensor compute_value() override;

 private:
  std::string reduction_;
  StateId score_, images_;
};

}  // namespace fulgur::metrics
