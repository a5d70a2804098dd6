#include "fulgur/metrics/critical_success_index.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

CriticalSuccessIndex::CriticalSuccessIndex(double threshold, CriticalSuccessIndexOptions options)
    : Metric("CriticalSuccessIndex"), threshold_(threshold), options_(options) {
  if (!std::isfinite(threshold_)) {
    throw ConfigError(
        fmt::format("CriticalSuccessIndex(threshold={}) must be a finite number", threshold_));
  }
  if (options_.keep_sequence_dim && *options_.keep_sequence_dim < 0) {
    throw ConfigError(
        fmt::format("CriticalSuccessIndex(keep_sequence_dim={}) must be a dimension index >= 0",
                    *options_.keep_sequence_dim));
  }
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  counts_ = options_.keep_sequence_dim ? add_state("counts", at::zeros({0, 3}, f64), Reduction::Cat)
                                       : add_state("counts", at::zeros({3}, f64), Reduction::Sum);
}

void CriticalSuccessIndex::update_state(const at::Tensor& preds, const at::Tensor& target) {
  check_same_shape(name(), preds, target);
  // In the inputs' own precision, as torchmetrics: a float 0.7 is an event at threshold 0.7.
  const auto predicted = preds.ge(threshold_), actual = target.ge(threshold_);
  const auto events = at::stack({predicted & actual, actual & ~predicted, predicted & ~actual});
  if (!options_.keep_sequence_dim) {
    state(counts_).add_(events.reshape({3, -1}).sum(1).to(at::kDouble));
    return;
  }
  const int64_t keep = *options_.keep_sequence_dim;
  if (keep >= preds.dim()) {
    fail(fmt::format("keep_sequence_dim={} is not a dimension of inputs with {} dimensions", keep,
                     preds.dim()));
  }
  // [3, S, rest]: each kept index' counts.
  const int64_t length = preds.size(keep), rest = length == 0 ? 0 : preds.numel() / length;
  const auto per_index = events.movedim(keep + 1, 1).reshape({3, length, rest});
  append(counts_, per_index.sum(2).t().to(at::kDouble));
}

at::Tensor CriticalSuccessIndex::compute_value() {
  const auto counts = options_.keep_sequence_dim ? cat_state(counts_) : state(counts_);
  const auto hits = counts.select(-1, 0);
  return safe_divide(hits, counts.sum(-1));
}

}  // namespace fulgur::metrics
