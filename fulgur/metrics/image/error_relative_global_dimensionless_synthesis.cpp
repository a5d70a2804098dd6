#include "fulgur/metrics/image/error_relative_global_dimensionless_synthesis.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

ErrorRelativeGlobalDimensionlessSynthesis::ErrorRelativeGlobalDimensionlessSynthesis(
    ErrorRelativeGlobalDimensionlessSynthesisOptions options)
    : Metric("ErrorRelativeGlobalDimensionlessSynthesis"),
      ratio_(options.ratio),
      reduction_(std::move(options.reduction)) {
  if (!(ratio_ > 0)) {
    throw ConfigError(fmt::format("{}: ratio must be positive, not {}", name(), ratio_));
  }
  check_choice(name(), "reduction", reduction_, {"elementwise_mean", "sum", "none"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  scores_ = reduction_ == "none" ? add_state("ergas_list", at::zeros({0}, doubles), Reduction::Cat)
                                 : add_state("sum_ergas", at::zeros({}, doubles), Reduction::Sum);
  images_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

void ErrorRelativeGlobalDimensionlessSynthesis::update_state(const at::Tensor& preds,
                                                             const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 4) {
    fail(
        fmt::format("preds and target must be [N, C, H, W], not [{}]", fmt::join(p.sizes(), ", ")));
  }
  const auto pixels = t.flatten(2);
  const auto band_rmse = (p.flatten(2) - pixels).square().mean(2).sqrt();
  const auto relative = band_rmse / pixels.mean(2);
  const auto scores = 100 / ratio_ * relative.square().mean(1).sqrt();
  if (reduction_ == "none") {
    append(scores_, scores);
  } else {
    state(scores_).add_(scores.sum());
  }
  state(images_).add_(static_cast<double>(p.size(0)));
}

at::Tensor ErrorRelativeGlobalDimensionlessSynthesis::compute_value() {
  if (reduction_ == "none") return cat_state(scores_);
  if (reduction_ == "sum") return state(scores_).clone();
  return state(scores_) / state(images_);
}

}  // namespace fulgur::metrics
