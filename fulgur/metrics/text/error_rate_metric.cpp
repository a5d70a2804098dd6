#include "fulgur/metrics/text/error_rate_metric.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "fulgur/metrics/text/text_inputs.h"

namespace fulgur::metrics {

ErrorRateMetric::ErrorRateMetric(std::string name, Unit unit)
    : TextMetric(std::move(name), 4), unit_(unit) {
  const auto zero = at::zeros({}, at::TensorOptions().dtype(at::kDouble));
  errors_ = add_state("errors", zero, Reduction::Sum);
  target_total_ = add_state("target_total", zero, Reduction::Sum);
  preds_total_ = add_state("preds_total", zero, Reduction::Sum);
  total_ = add_state("total", zero, Reduction::Sum);
}

void ErrorRateMetric::count(const std::u32string& pred, const std::u32string& target,
                            double* counts) const {
  int64_t errors, target_length, pred_length;
  if (unit_ == Unit::Characters) {
    errors = edit_distance(pred, target);
    target_length = static_cast<int64_t>(target.size());
    pred_length = static_cast<int64_t>(pred.size());
  } else {
    const auto pred_words = split_words(pred), target_words = split_words(target);
    errors = edit_distance(pred_words, target_words);
    target_length = static_cast<int64_t>(target_words.size());
    pred_length = static_cast<int64_t>(pred_words.size());
  }
  counts[0] = static_cast<double>(errors);
  counts[1] = static_cast<double>(target_length);
  counts[2] = static_cast<double>(pred_length);
  counts[3] = static_cast<double>(std::max(target_length, pred_length));
}

void ErrorRateMetric::update_state(const at::Tensor& counts, const at::Tensor& /*unused*/) {
  const auto sums = counts.sum(0);
  state(errors_).add_(sums[0]);
  state(target_total_).add_(sums[1]);
  state(preds_total_).add_(sums[2]);
  state(total_).add_(sums[3]);
}

at::Tensor ErrorRateMetric::compute_value() {
  return rate(state(errors_), state(target_total_), state(preds_total_), state(total_));
}

}  // namespace fulgur::metrics
