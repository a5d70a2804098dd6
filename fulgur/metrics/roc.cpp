#include "fulgur/metrics/roc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <utility>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

ROC::ROC(ROCOptions options) : ROC("ROC", std::move(options)) {}

ROC::ROC(std::string metric_name, ROCOptions options)
    : CurveMetric(std::move(metric_name), options.curve()) {}

std::vector<RocCurve> ROC::curves() {
  const auto counts = threshold_counts();
  // counts / total; 0 where a class has no such sample (torchmetrics' choice, with a warning).
  const auto rate = [&](const at::Tensor& cleared, double total, int64_t index, const char* sample,
                        const char* rate_name) {
    if (total > 0) return cleared / total;
    warn(fmt::format("{}: {} has no {} sample; its {} positive rate is 0 at every threshold",
                     name(), curve_name(index), sample, rate_name));
    return at::zeros_like(cleared);
  };
  std::vector<RocCurve> curves;
  for (size_t c = 0; c < counts.size(); ++c) {
    const auto& curve = counts[c];
    const auto index = static_cast<int64_t>(c);
    curves.push_back({rate(curve.fps, curve.negatives, index, "negative", "false"),
                      rate(curve.tps, curve.positives, index, "positive", "true"),
                      curve.thresholds});
  }
  return curves;
}

at::Tensor ROC::compute_value() {
  std::vector<std::pair<at::Tensor, at::Tensor>> rates;
  for (auto& curve : curves()) rates.emplace_back(curve.fpr, curve.tpr);
  return stack_curves(rates, "ROC::curves()");
}

}  // namespace fulgur::metrics
