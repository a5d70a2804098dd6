#include "fulgur/metrics/text/text_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/metrics/text/text_inputs.h"

namespace fulgur::metrics {

TextMetric::TextMetric(std::string name, int64_t counts_per_pair)
    : Metric(std::move(name)), counts_per_pair_(counts_per_pair) {}

at::Tensor TextMetric::batch_counts(const std::vector<std::string>& preds,
                                    const std::vector<std::string>& target) const {
  if (preds.size() != target.size()) {
    fail(fmt::format("{} predictions for {} references; each prediction needs its reference",
                     preds.size(), target.size()));
  }
  const auto n = static_cast<int64_t>(preds.size());
  auto counts = at::zeros({n, counts_per_pair_}, at::TensorOptions().dtype(at::kDouble));
  double* row = counts.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i, row += counts_per_pair_) {
    count(decode_utf8(name(), preds[i]), decode_utf8(name(), target[i]), row);
  }
  return counts.to(device());  // where the states are
}

void TextMetric::update(const std::vector<std::string>& preds,
                        const std::vector<std::string>& target) {
  Metric::update(batch_counts(preds, target));
}

at::Tensor TextMetric::forward(const std::vector<std::string>& preds,
                               const std::vector<std::string>& target) {
  return Metric::forward(batch_counts(preds, target));
}

}  // namespace fulgur::metrics
