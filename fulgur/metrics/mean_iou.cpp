#include "fulgur/metrics/mean_iou.h"

#include <ATen/ATen.h>

#include <utility>
#include <vector>

#include "fulgur/metrics/segmentation_inputs.h"

namespace fulgur::metrics {

MeanIoU::MeanIoU(MeanIoUOptions options) : Metric("MeanIoU"), options_(std::move(options)) {
  check_segmentation_options(name(), options_.num_classes, options_.input_format);
  const int64_t kept = scored_classes(options_.num_classes, options_.include_background);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = add_state("score", at::zeros({kept}, doubles), Reduction::Sum);
  present_ = add_state("num_batches", at::zeros({kept}, doubles), Reduction::Sum);
}

void MeanIoU::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = segmentation_masks(name(), preds, target, options_.num_classes,
                                         options_.include_background, options_.input_format);
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < p.dim(); ++d) spatial.push_back(d);
  const auto intersection = (p & t).sum(spatial).to(at::kDouble);
  const auto unions = (p | t).sum(spatial).to(at::kDouble);
  // [N, C]: a sample's score counts for the classes it has (a union above 0).
  const auto present = unions.gt(0);
  const auto scores =
      at::where(present, intersection / unions.clamp_min(1), at::zeros_like(unions));
  state(score_).add_(scores.sum(0));
  state(present_).add_(present.sum(0).to(at::kDouble));
}

at::Tensor MeanIoU::compute_value() {
  const auto& score = state(score_);
  const auto& present = state(present_);
  if (options_.per_class) {
    return at::where(present.gt(0), score / present.clamp_min(1), at::full_like(score, -1.0));
  }
  return score.sum() / present.sum();
}

}  // namespace fulgur::metrics
