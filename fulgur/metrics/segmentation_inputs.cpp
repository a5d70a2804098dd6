#include "fulgur/metrics/segmentation_inputs.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {
namespace {

// One input as [N, C, ...] 0/1 masks.
at::Tensor masks(const std::string& metric, const at::Tensor& input, bool indices, const char* what,
                 int64_t num_classes, const std::string& input_format) {
  if (!indices) {
    if (input.dim() < 3 || input.size(1) != num_classes) {
      throw MetricError(
          fmt::format("{}: {} as one-hot masks or scores must be [N, {}, ...], got shape [{}]",
                      metric, what, num_classes, fmt::join(input.sizes(), ", ")));
    }
    if (input.is_floating_point()) {
      return at::one_hot(input.argmax(1), num_classes).movedim(-1, 1);
    }
    return input.ne(0).to(at::kLong);
  }
  if (input.is_floating_point()) {
    throw MetricError(fmt::format("{}: {} as class indices must be integers, got {}", metric, what,
                                  c10::toString(input.scalar_type())));
  }
  auto labels = input;
  // With input_format "index", [L] and [H, W] indices are one sample.
  if (input_format == "index" && labels.dim() == 1) labels = labels.unsqueeze(0);
  if (input_format == "index" && labels.dim() == 2) labels = labels.unsqueeze(0);
  if ((labels.lt(0) | labels.ge(num_classes)).any().item<bool>()) {
    throw MetricError(
        fmt::format("{}: {} holds class indices outside [0, {})", metric, what, num_classes));
  }
  return at::one_hot(labels.to(at::kLong), num_classes).movedim(-1, 1);
}

}  // namespace

void check_segmentation_options(const std::string& metric, int64_t num_classes,
                                const std::string& input_format) {
  if (num_classes < 1) {
    throw ConfigError(
        fmt::format("{}(num_classes={}) must be a positive integer", metric, num_classes));
  }
  if (input_format != "one-hot" && input_format != "index" && input_format != "mixed") {
    throw ConfigError(fmt::format(
        "{}(input_format=\"{}\") is not valid; choose \"one-hot\", \"index\" or \"mixed\"", metric,
        input_format));
  }
}

int64_t scored_classes(int64_t num_classes, bool include_background) {
  return include_background || num_classes == 1 ? num_classes : num_classes - 1;
}

std::pair<at::Tensor, at::Tensor> segmentation_masks(const std::string& metric,
                                                     const at::Tensor& preds,
                                                     const at::Tensor& target, int64_t num_classes,
                                                     bool include_background,
                                                     const std::string& input_format) {
  if (!preds.defined() || !target.defined()) {
    throw MetricError(fmt::format("{}: update() needs preds and target", metric));
  }
  const bool mixed = input_format == "mixed";
  if (mixed ? (preds.dim() != target.dim() + 1 && target.dim() != preds.dim() + 1)
            : preds.sizes() != target.sizes()) {
    throw MetricError(
        fmt::format("{}: preds has shape [{}] and target [{}]; input_format=\"{}\" wants {}",
                    metric, fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", "),
                    input_format, mixed ? "one [N, C, ...] and one [N, ...]" : "the same shape"));
  }
  // Under "mixed", the side with fewer dimensions holds the indices.
  const bool preds_are_indices = input_format == "index" || (mixed && preds.dim() < target.dim());
  const bool target_are_indices = input_format == "index" || (mixed && target.dim() < preds.dim());
  auto p = masks(metric, preds.detach(), preds_are_indices, "preds", num_classes, input_format);
  auto t = masks(metric, target.detach(), target_are_indices, "target", num_classes, input_format);
  if (p.sizes() != t.sizes()) {
    throw MetricError(
        fmt::format("{}: preds of shape [{}] and target of shape [{}] are not masks of one shape",
                    metric, fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  if (!include_background && num_classes > 1) {
    p = p.slice(1, 1);
    t = t.slice(1, 1);
  }
  return {p, t};
}

}  // namespace fulgur::metrics
