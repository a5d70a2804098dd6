#include "fulgur/metrics/exact_match.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

ExactMatch::ExactMatch(ExactMatchOptions options)
    : Metric("ExactMatch"),
      options_(std::move(options)),
      task_(parse_task(name(), options_.task, options_.num_classes, options_.num_labels)) {
  if (task_ == Task::Binary) {
    throw ConfigError(
        "ExactMatch(task=\"binary\") is not valid; choose \"multiclass\" or \"multilabel\" (as "
        "torchmetrics: a binary sample has one answer, which Accuracy scores)");
  }
  if (options_.threshold < 0 || options_.threshold > 1) {
    throw ConfigError(
        fmt::format("ExactMatch(threshold={}) must be in [0, 1]", options_.threshold));
  }
  const auto longs = at::TensorOptions().dtype(at::kLong);
  matches_ = add_state("correct", at::zeros({}, longs), Reduction::Sum);
  samples_ = add_state("total", at::zeros({}, longs), Reduction::Sum);
}

void ExactMatch::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  // One row per sample, one column per answer it must get right.
  at::Tensor right;
  if (task_ == Task::Multilabel) {
    const auto batch = format_multilabel(name(), preds, target, *o.num_labels, o.threshold,
                                         o.ignore_index, o.validate_args);
    right = batch.preds.eq(batch.target) | batch.valid.eq(0);
  } else {
    const auto batch =
        format_multiclass(name(), preds, target, *o.num_classes, o.ignore_index, o.validate_args);
    const auto labels = batch.preds.dim() == 2 ? batch.preds.argmax(1) : batch.preds;
    const int64_t samples = target.dim() == 0 ? 1 : target.size(0);
    if (samples == 0) return;
    right = (labels.eq(batch.target) | batch.valid.eq(0)).reshape({samples, -1});
  }
  state(matches_) += right.all(1).sum();
  state(samples_) += right.size(0);
}

at::Tensor ExactMatch::compute_value() {
  return safe_divide(state(matches_).to(at::kDouble), state(samples_).to(at::kDouble));
}

}  // namespace fulgur::metrics
