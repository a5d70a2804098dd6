#include "fulgur/metrics/r2_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

R2Score::R2Score(R2ScoreOptions options) : Metric("R2Score"), options_(std::move(options)) {
  if (options_.num_outputs < 1) {
    throw ConfigError(fmt::format("R2Score(num_outputs={}) must be >= 1", options_.num_outputs));
  }
  const auto& m = options_.multioutput;
  if (m != "uniform_average" && m != "variance_weighted" && m != "raw_values") {
    throw ConfigError(
        fmt::format("R2Score(multioutput=\"{}\") is not valid; choose \"uniform_average\", "
                    "\"variance_weighted\" or \"raw_values\"",
                    m));
  }
  const auto per_output = at::zeros({options_.num_outputs}, at::TensorOptions().dtype(at::kDouble));
  sum_squared_obs_ = add_state("sum_squared_obs", per_output, Reduction::Sum);
  sum_obs_ = add_state("sum_obs", per_output, Reduction::Sum);
  residual_ = add_state("residual", per_output, Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

bool R2Score::is_scalar() const {
  return options_.multioutput != "raw_values" || options_.num_outputs == 1;
}

void R2Score::update_state(const at::Tensor& preds, const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  const int64_t outputs = options_.num_outputs;
  const bool fits = outputs == 1 ? (p.dim() == 1 || (p.dim() == 2 && p.size(1) == 1))
                                 : (p.dim() == 2 && p.size(1) == outputs);
  if (!fits) {
    fail(fmt::format("preds has shape [{}]; with num_outputs={} expected {}",
                     fmt::join(p.sizes(), ", "), outputs,
                     outputs == 1 ? std::string("[N]") : fmt::format("[N, {}]", outputs)));
  }
  p = p.reshape({-1, outputs});
  t = t.reshape({-1, outputs});
  state(sum_obs_).add_(t.sum(0));
  state(sum_squared_obs_).add_(t.square().sum(0));
  state(residual_).add_((t - p).square().sum(0));
  state(total_).add_(t.size(0));
}

at::Tensor R2Score::compute_value() {
  const auto n = state(total_).item<int64_t>();
  if (n < 2) fail(fmt::format("needs at least 2 samples to score, got {}", n));
  const auto count = static_cast<double>(n);
  const auto tss = state(sum_squared_obs_) - state(sum_obs_).square() / count;
  const auto raw = 1 - state(residual_) / tss;
  const auto& m = options_.multioutput;
  if (m == "raw_values") return options_.num_outputs == 1 ? raw.squeeze(0) : raw;
  if (m == "variance_weighted") return (tss * raw).sum() / tss.sum();
  return raw.mean();
}

}  // namespace fulgur::metrics
