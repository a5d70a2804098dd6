#include "fulgur/metrics/mean_iou.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>
#include <vector>

#include "fulgur/errors.h"

namespace fulgur::metrics {

MeanIoU::MeanIoU(MeanIoUOptions options) : Metric("MeanIoU"), options_(std::move(options)) {
  if (options_.num_classes < 1) {
    throw ConfigError(
        fmt::format("MeanIoU(num_classes={}) must be a positive integer", options_.num_classes));
  }
  const auto& format = options_.input_format;
  if (format != "one-hot" && format != "index" && format != "mixed") {
    throw ConfigError(fmt::format(
        "MeanIoU(input_format=\"{}\") is not valid; choose \"one-hot\", \"index\" or \"mixed\"",
        format));
  }
  const int64_t kept = options_.include_background || options_.num_classes == 1
                           ? options_.num_classes
                           : options_.num_classes - 1;
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = add_state("score", at::zeros({kept}, doubles), Reduction::Sum);
  present_ = add_state("num_batches", at::zeros({kept}, doubles), Reduction::Sum);
}

at::Tensor MeanIoU::masks(const at::Tensor& input, bool indices, const char* what) const {
  const int64_t c = options_.num_classes;
  if (!indices) {
    if (input.dim() < 3 || input.size(1) != c) {
      fail(fmt::format("{} as one-hot masks or scores must be [N, {}, ...], got shape [{}]", what,
                       c, fmt::join(input.sizes(), ", ")));
    }
    if (input.is_floating_point()) return at::one_hot(input.argmax(1), c).movedim(-1, 1);
    return input.ne(0).to(at::kLong);
  }
  if (input.is_floating_point()) {
    fail(fmt::format("{} as class indices must be integers, got {}", what,
                     c10::toString(input.scalar_type())));
  }
  auto labels = input;
  // With input_format "index", [L] and [H, W] indices are one sample.
  if (options_.input_format == "index" && labels.dim() == 1) labels = labels.unsqueeze(0);
  if (options_.input_format == "index" && labels.dim() == 2) labels = labels.unsqueeze(0);
  if ((labels.lt(0) | labels.ge(c)).any().item<bool>()) {
    fail(fmt::format("{} holds class indices outside [0, {})", what, c));
  }
  return at::one_hot(labels.to(at::kLong), c).movedim(-1, 1);
}

void MeanIoU::update_state(const at::Tensor& preds, const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) fail("update() needs preds and target");
  const auto& format = options_.input_format;
  if (format == "mixed" ? (preds.dim() != target.dim() + 1 && target.dim() != preds.dim() + 1)
                        : preds.sizes() != target.sizes()) {
    fail(fmt::format("preds has shape [{}] and target [{}]; input_format=\"{}\" wants {}",
                     fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", "), format,
                     format == "mixed" ? "one [N, C, ...] and one [N, ...]" : "the same shape"));
  }
  // Under "mixed", the side with fewer dimensions holds the indices.
  const bool preds_are_indices =
      format == "index" || (format == "mixed" && preds.dim() < target.dim());
  const bool target_are_indices =
      format == "index" || (format == "mixed" && target.dim() < preds.dim());
  auto p = masks(preds.detach(), preds_are_indices, "preds");
  auto t = masks(target.detach(), target_are_indices, "target");
  if (p.sizes() != t.sizes()) {
    fail(fmt::format("preds of shape [{}] and target of shape [{}] are not masks of one shape",
                     fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  if (!options_.include_background && options_.num_classes > 1) {
    p = p.slice(1, 1);
    t = t.slice(1, 1);
  }
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
