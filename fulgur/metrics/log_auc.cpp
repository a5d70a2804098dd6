#include "fulgur/metrics/log_auc.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {
namespace {

std::vector<double> host_values(const at::Tensor& t) {
  const auto c = t.to(at::kCPU, at::kDouble).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

// torchmetrics' interp: on the segment from the last point with fpr <= x to the next one (the
// first and last segments extended), a vertical segment giving its lower end.
double interpolate(double x, const std::vector<double>& fpr, const std::vector<double>& tpr) {
  const auto at_or_below = std::upper_bound(fpr.begin(), fpr.end(), x) - fpr.begin();
  const auto i = std::clamp<std::ptrdiff_t>(at_or_below - 1, 0, std::ssize(fpr) - 2);
  const double run = fpr[i + 1] - fpr[i];
  const double slope = run == 0 ? 0 : (tpr[i + 1] - tpr[i]) / run;
  return tpr[i] + slope * (x - fpr[i]);
}

}  // namespace

LogAUC::LogAUC(LogAUCOptions options)
    : ROC("LogAUC", {options.task, options.num_classes, options.num_labels, options.thresholds,
                     options.ignore_index, options.validate_args}),
      fpr_range_(options.fpr_range),
      average_(std::move(options.average)) {
  const auto [low, high] = fpr_range_;
  // torchmetrics allows low = 0, whose log is -inf and whose score is then NaN.
  if (!(0 < low && low < high && high <= 1)) {
    throw ConfigError(
        fmt::format("LogAUC(fpr_range=({}, {})) must satisfy 0 < low < high <= 1 (the rates "
                    "are on a log axis)",
                    low, high));
  }
  if (average_ != "macro" && average_ != "none") {
    throw ConfigError(
        fmt::format("LogAUC(average=\"{}\") is not valid; choose \"macro\" or \"none\"", average_));
  }
}

double LogAUC::score(const RocCurve& curve) const {
  auto fpr = host_values(curve.fpr), tpr = host_values(curve.tpr);
  if (fpr.size() < 2) {
    warn(fmt::format("{}: a curve of fewer than 2 points has no area; its score is 0", name()));
    return 0;
  }
  // Both ends of the range become points of the curve (both rates only grow along it).
  const auto [low, high] = fpr_range_;
  const double tpr_low = interpolate(low, fpr, tpr), tpr_high = interpolate(high, fpr, tpr);
  fpr.insert(fpr.end(), {low, high});
  tpr.insert(tpr.end(), {tpr_low, tpr_high});
  std::sort(fpr.begin(), fpr.end());
  std::sort(tpr.begin(), tpr.end());
  // The trapezoids in log10(fpr) between the last points at the two ends.
  const auto last_at = [&](double x) {
    return std::prev(std::upper_bound(fpr.begin(), fpr.end(), x)) - fpr.begin();
  };
  const auto first = last_at(low), last = last_at(high);
  double area = 0;
  for (auto i = first; i < last; ++i) {
    area += (std::log10(fpr[i + 1]) - std::log10(fpr[i])) * (tpr[i] + tpr[i + 1]) / 2;
  }
  return area / (std::log10(high) - std::log10(low));
}

at::Tensor LogAUC::compute_value() {
  std::vector<double> scores;
  for (const auto& curve : curves()) scores.push_back(score(curve));
  const auto values = at::tensor(scores, at::TensorOptions().dtype(at::kDouble));
  if (task() == Task::Binary) return values[0];
  return average_ == "macro" ? values.mean() : values;
}

}  // namespace fulgur::metrics
