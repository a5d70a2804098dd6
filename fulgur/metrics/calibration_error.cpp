#include "fulgur/metrics/calibration_error.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

CalibrationError::CalibrationError(CalibrationErrorOptions options)
    : Metric("CalibrationError"),
      options_(std::move(options)),
      task_(parse_binary_or_multiclass_task(name(), options_.task, options_.num_classes)) {
  if (options_.n_bins < 1) {
    throw ConfigError(
        fmt::format("CalibrationError(n_bins={}) must be at least 1", options_.n_bins));
  }
  const auto& norm = options_.norm;
  if (norm != "l1" && norm != "l2" && norm != "max") {
    throw ConfigError(fmt::format(
        "CalibrationError(norm=\"{}\") is not valid; choose \"l1\", \"l2\" or \"max\"", norm));
  }
  const auto bins = at::zeros({options_.n_bins + 1}, at::TensorOptions().dtype(at::kDouble));
  samples_ = add_state("samples", bins, Reduction::Sum);
  confidence_ = add_state("confidence", bins, Reduction::Sum);
  right_ = add_state("right", bins, Reduction::Sum);
}

void CalibrationError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (preds.defined() && !preds.is_floating_point()) {
    fail(fmt::format("preds must be scores (probabilities or logits), got {} values",
                     c10::toString(preds.scalar_type())));
  }
  at::Tensor confidence, right, valid;
  if (task_ == Task::Binary) {
    const auto batch = format_binary(name(), preds, target, 0.5, o.ignore_index, o.validate_args);
    confidence = binary_probabilities(preds.reshape({-1}));
    right = batch.target;
    valid = batch.valid;
  } else {
    const auto batch =
        format_multiclass(name(), preds, target, *o.num_classes, o.ignore_index, o.validate_args);
    const auto [top, label] = multiclass_probabilities(batch.preds).max(1);
    confidence = top;
    right = label.eq(batch.target);
    valid = batch.valid;
  }
  // torchmetrics bins in the preds' own precision; its boundaries are i / n_bins.
  const auto boundaries = at::linspace(0, 1, o.n_bins + 1, confidence.options());
  const auto bin = at::bucketize(confidence, boundaries, /*out_int32=*/false, /*right=*/true) - 1;
  const auto weight = valid.to(at::kDouble);
  state(samples_).index_add_(0, bin, weight);
  state(confidence_).index_add_(0, bin, confidence.to(at::kDouble) * weight);
  state(right_).index_add_(0, bin, right.to(at::kDouble) * weight);
}

at::Tensor CalibrationError::compute_value() {
  const auto& samples = state(samples_);
  const auto total = samples.sum();
  if (total.item<double>() == 0) {
    fail("every sample seen so far was ignored (ignore_index); there is nothing to score");
  }
  const auto gap = safe_divide(state(right_), samples) - safe_divide(state(confidence_), samples);
  const auto share = samples / total;
  if (options_.norm == "max") return gap.abs().max();
  if (options_.norm == "l2") return (gap.square() * share).sum().sqrt();
  return (gap.abs() * share).sum();
}

}  // namespace fulgur::metrics
