#include "fulgur/metrics/operating_point.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <optional>
#include <tuple>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

constexpr double kNoThreshold = 1e6;

struct CurvePoints {
  at::Tensor value, constraint, thresholds;  // float64, contiguous, on the host
  explicit CurvePoints(const at::Tensor& v, const at::Tensor& c, const at::Tensor& t)
      : value(v.to(at::kCPU, at::kDouble).contiguous()),
        constraint(c.to(at::kCPU, at::kDouble).contiguous()),
        thresholds(t.to(at::kCPU, at::kDouble).contiguous()) {}
  double v(int64_t i) const { return value.data_ptr<double>()[i]; }
  double c(int64_t i) const { return constraint.data_ptr<double>()[i]; }
  double t(int64_t i) const { return thresholds.data_ptr<double>()[i]; }
};

}  // namespace

OperatingPoint best_on_precision_recall(const at::Tensor& value, const at::Tensor& constraint,
                                        const at::Tensor& thresholds, double minimum) {
  const CurvePoints curve(value, constraint, thresholds);
  std::optional<int64_t> best;
  for (int64_t i = 0; i < curve.thresholds.numel(); ++i) {
    if (!(curve.c(i) >= minimum)) continue;
    const auto key = [&](int64_t k) { return std::tuple(curve.v(k), curve.c(k), curve.t(k)); };
    if (!best || key(i) > key(*best)) best = i;
  }
  if (!best || curve.v(*best) == 0) return {0.0, kNoThreshold};
  return {curve.v(*best), curve.t(*best)};
}

OperatingPoint best_on_roc(const at::Tensor& value, const at::Tensor& constraint,
                           const at::Tensor& thresholds, double minimum) {
  const CurvePoints curve(value, constraint, thresholds);
  std::optional<int64_t> best;
  for (int64_t i = 0; i < curve.thresholds.numel(); ++i) {
    if (curve.c(i) >= minimum && (!best || curve.v(i) > curve.v(*best))) best = i;
  }
  if (!best) return {0.0, kNoThreshold};
  return {curve.v(*best), curve.t(*best)};
}

OperatingPoints stack_points(const std::vector<OperatingPoint>& points, bool binary) {
  std::vector<double> values, thresholds;
  for (const auto& p : points) {
    values.push_back(p.value);
    thresholds.push_back(p.threshold);
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  auto value = at::tensor(values, doubles), threshold = at::tensor(thresholds, doubles);
  if (binary) return {value.squeeze(0), threshold.squeeze(0)};
  return {value, threshold};
}

void check_minimum(const std::string& metric, const std::string& what, double minimum) {
  if (!(minimum >= 0 && minimum <= 1)) {
    throw ConfigError(fmt::format("{}({}={}) must lie in [0, 1]", metric, what, minimum));
  }
}

}  // namespace fulgur::metrics
