#include "fulgur/metrics/multioutput.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

void check_num_outputs(const std::string& metric, int64_t num_outputs) {
  if (num_outputs < 1) {
    throw ConfigError(fmt::format("{}(num_outputs={}) must be >= 1", metric, num_outputs));
  }
}

void check_multioutput(const std::string& metric, int64_t num_outputs,
                       const std::string& multioutput) {
  check_num_outputs(metric, num_outputs);
  const auto& m = multioutput;
  if (m != "uniform_average" && m != "variance_weighted" && m != "raw_values") {
    throw ConfigError(
        fmt::format("{}(multioutput=\"{}\") is not valid; choose \"uniform_average\", "
                    "\"variance_weighted\" or \"raw_values\"",
                    metric, m));
  }
}

std::pair<at::Tensor, at::Tensor> per_output_pair(const std::string& metric,
                                                  const at::Tensor& preds, const at::Tensor& target,
                                                  int64_t num_outputs) {
  auto [p, t] = regression_pair(metric, preds, target);
  const bool fits = num_outputs == 1 ? (p.dim() == 1 || (p.dim() == 2 && p.size(1) == 1))
                                     : (p.dim() == 2 && p.size(1) == num_outputs);
  if (!fits) {
    throw MetricError(
        fmt::format("{}: preds has shape [{}]; with num_outputs={} expected {}", metric,
                    fmt::join(p.sizes(), ", "), num_outputs,
                    num_outputs == 1 ? std::string("[N]") : fmt::format("[N, {}]", num_outputs)));
  }
  return {p.reshape({-1, num_outputs}), t.reshape({-1, num_outputs})};
}

at::Tensor combine_outputs(const at::Tensor& scores, const at::Tensor& variances,
                           const std::string& multioutput) {
  if (multioutput == "raw_values") return scores.numel() == 1 ? scores.squeeze(0) : scores;
  if (multioutput == "variance_weighted") return (variances * scores).sum() / variances.sum();
  return scores.mean();
}

}  // namespace fulgur::metrics
