#include "fulgur/metrics/r2_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/multioutput.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

R2Score::R2Score(R2ScoreOptions options) : R2Score("R2Score", std::move(options)) {}

R2Score::R2Score(std::string name, R2ScoreOptions options)
    : Metric(std::move(name)), options_(std::move(options)) {
  check_multioutput(this->name(), options_.num_outputs, options_.multioutput);
  if (options_.adjusted < 0) {
    throw ConfigError(fmt::format("{}(adjusted={}) must be the number of regressors, >= 0",
                                  this->name(), options_.adjusted));
  }
  const auto per_output = at::zeros({options_.num_outputs}, at::TensorOptions().dtype(at::kDouble));
  sum_squared_obs_ = add_state("sum_squared_obs", per_output, Reduction::Sum);
  sum_obs_ = add_state("sum_obs", per_output, Reduction::Sum);
  residual_ = add_state("residual", per_output, Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

bool R2Score::is_scalar() const {
  return multioutput_is_scalar(options_.num_outputs, options_.multioutput);
}

void R2Score::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  state(sum_obs_).add_(t.sum(0));
  state(sum_squared_obs_).add_(t.square().sum(0));
  state(residual_).add_((t - p).square().sum(0));
  state(total_).add_(t.size(0));
}

std::pair<at::Tensor, at::Tensor> R2Score::sums_of_squares() {
  const auto n = state(total_).item<int64_t>();
  if (n < 2) fail(fmt::format("needs at least 2 samples to score, got {}", n));
  const auto count = static_cast<double>(n);
  return {state(residual_), state(sum_squared_obs_) - state(sum_obs_).square() / count};
}

at::Tensor R2Score::compute_value() {
  const auto [rss, tss] = sums_of_squares();
  const auto r2 = combine_outputs(1 - rss / tss, tss, options_.multioutput);
  const int64_t k = options_.adjusted, n = state(total_).item<int64_t>();
  if (k == 0) return r2;
  if (n <= k + 1) {
    warn(
        fmt::format("{}(adjusted={}): {} samples are too few for {} regressors (the adjusted "
                    "score needs more than {}); returning the plain R^2",
                    name(), k, n, k, k + 1));
    return r2;
  }
  return 1 - (1 - r2) * static_cast<double>(n - 1) / static_cast<double>(n - k - 1);
}

}  // namespace fulgur::metrics
