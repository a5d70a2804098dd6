#include "fulgur/metrics/curve_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <vector>

#include "fulgur/warnings.h"

namespace fulgur::metrics {

CurveScore::CurveScore(std::string name, CurveOptions options)
    : CurveMetric(std::move(name), std::move(options)) {}

at::Tensor CurveScore::compute_value() {
  const auto curves = threshold_counts();
  const auto out = at::TensorOptions().dtype(at::kDouble).device(device());
  const auto& average = options().average;
  if (task() == Task::Binary || micro()) {
    return at::scalar_tensor(score(curves[0], curve_name(0)), out);
  }
  const auto classes = static_cast<int64_t>(curves.size());
  std::vector<double> per_class;
  std::vector<int64_t> undefined;
  for (int64_t c = 0; c < classes; ++c) {
    per_class.push_back(score(curves[c], curve_name(c)));
    if (std::isnan(per_class.back())) undefined.push_back(c);
  }
  if (average == "none") return at::tensor(per_class, out);
  if (!undefined.empty()) {
    warn(fmt::format("{}: the score of {}(s) {} is NaN; the {} average leaves them out", name(),
                     task() == Task::Multilabel ? "label" : "class", fmt::join(undefined, ", "),
                     average));
  }
  double total = 0, weights = 0;
  for (int64_t c = 0; c < classes; ++c) {
    if (std::isnan(per_class[c])) continue;
    const double weight = average == "weighted" ? curves[c].positives : 1.0;
    total += weight * per_class[c];
    weights += weight;
  }
  return at::scalar_tensor(weights > 0 ? total / weights : std::nan(""), out);
}

}  // namespace fulgur::metrics
