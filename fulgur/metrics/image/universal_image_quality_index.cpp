#include "fulgur/metrics/image/universal_image_quality_index.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/local_statistics.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

UniversalImageQualityIndex::UniversalImageQualityIndex(UniversalImageQualityIndexOptions options)
    : Metric("UniversalImageQualityIndex"), options_(std::move(options)) {
  if (options_.kernel_size <= 0 || options_.kernel_size % 2 == 0) {
    throw ConfigError(fmt::format("{}: kernel_size must be odd and positive, not {}", name(),
                                  options_.kernel_size));
  }
  if (!(options_.sigma > 0)) {
    throw ConfigError(fmt::format("{}: sigma must be positive, not {}", name(), options_.sigma));
  }
  check_choice(name(), "reduction", options_.reduction, {"elementwise_mean", "sum"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  sum_ = add_state("sum_uqi", at::zeros({}, doubles), Reduction::Sum);
  pixels_ = add_state("numel", at::zeros({}, doubles), Reduction::Sum);
}

void UniversalImageQualityIndex::update_state(const at::Tensor& preds, const at::Tensor& target) {
  check_same_shape(name(), preds, target);
  if (preds.dim() != 4) {
    fail(fmt::format("preds and target must be [N, C, H, W], not [{}]",
                     fmt::join(preds.sizes(), ", ")));
  }
  const int64_t size = options_.kernel_size;
  if (preds.size(2) < size || preds.size(3) < size) {
    fail(fmt::format("images of shape [{}] are smaller than the window of {}",
                     fmt::join(preds.sizes(), ", "), size));
  }
  const double eps = machine_epsilon(preds.scalar_type());
  const auto [p, t] = regression_pair(name(), preds, target);
  const auto local =
      local_statistics(p, t, image_window(p.size(1), 2, size, options_.sigma, p.device()));
  const auto product = local.mean_preds * local.mean_target;
  const auto map = (2 * product * (2 * local.covariance)) /
                   ((local.mean_preds.square() + local.mean_target.square()) *
                        (local.var_preds + local.var_target) +
                    eps);
  const int64_t pad = (size - 1) / 2;
  const auto inner = map.slice(2, pad, map.size(2) - pad).slice(3, pad, map.size(3) - pad);
  state(sum_).add_(inner.sum());
  state(pixels_).add_(static_cast<double>(inner.numel()));
}

at::Tensor UniversalImageQualityIndex::compute_value() {
  if (options_.reduction == "sum") return state(sum_).clone();
  return state(sum_) / state(pixels_);
}

}  // namespace fulgur::metrics
