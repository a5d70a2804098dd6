#include "fulgur/metrics/image/spectral_angle_mapper.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

SpectralAngleMapper::SpectralAngleMapper(SpectralAngleMapperOptions options)
    : Metric("SpectralAngleMapper"), reduction_(std::move(options.reduction)) {
  check_choice(name(), "reduction", reduction_, {"elementwise_mean", "sum"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  sum_ = add_state("sum_sam", at::zeros({}, doubles), Reduction::Sum);
  pixels_ = add_state("numel", at::zeros({}, doubles), Reduction::Sum);
}

void SpectralAngleMapper::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 4 || p.size(1) < 2) {
    fail(fmt::format("preds and target must be [N, C, H, W] with C >= 2 bands, not [{}]",
                     fmt::join(p.sizes(), ", ")));
  }
  const auto cosine = (p * t).sum(1) / (p.norm(2, 1) * t.norm(2, 1));
  const auto angles = cosine.clamp(-1, 1).acos();
  state(sum_).add_(angles.sum());
  state(pixels_).add_(static_cast<double>(angles.numel()));
}

at::Tensor SpectralAngleMapper::compute_value() {
  if (reduction_ == "sum") return state(sum_).clone();
  return state(sum_) / state(pixels_);
}

}  // namespace fulgur::metrics
