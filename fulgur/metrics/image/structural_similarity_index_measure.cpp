#include "fulgur/metrics/image/structural_similarity_index_measure.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/local_statistics.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

StructuralSimilarityIndexMeasure::StructuralSimilarityIndexMeasure(
    StructuralSimilarityIndexMeasureOptions options)
    : Metric("StructuralSimilarityIndexMeasure"), options_(std::move(options)) {
  if (options_.kernel_size <= 0 || options_.kernel_size % 2 == 0) {
    throw ConfigError(fmt::format("{}: kernel_size must be odd and positive, not {}", name(),
                                  options_.kernel_size));
  }
  if (!(options_.sigma > 0)) {
    throw ConfigError(fmt::format("{}: sigma must be positive, not {}", name(), options_.sigma));
  }
  if (options_.data_range) data_range_span(name(), *options_.data_range);
  check_choice(name(), "reduction", options_.reduction, {"elementwise_mean", "sum", "none"});
  window_size_ = options_.gaussian_kernel ? 2 * static_cast<int64_t>(3.5 * options_.sigma + 0.5) + 1
                                          : options_.kernel_size;
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  similarity_ = options_.reduction == "none"
                    ? add_state("similarity", at::zeros({0}, doubles), Reduction::Cat)
                    : add_state("similarity", at::zeros({}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

void StructuralSimilarityIndexMeasure::update_state(const at::Tensor& preds,
                                                    const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 4 && p.dim() != 5) {
    fail(fmt::format("preds and target must be [N, C, H, W] or [N, C, D, H, W], not [{}]",
                     fmt::join(p.sizes(), ", ")));
  }
  if (p.size(0) == 0) return;  // no images: nothing to add (and no range to read)
  const int64_t spatial_dims = p.dim() - 2;
  const int64_t pad = (window_size_ - 1) / 2;
  for (int64_t d = 2; d < p.dim(); ++d) {
    if (p.size(d) <= pad) {
      fail(
          fmt::format("images of shape [{}] are too small for a window of {}: each spatial "
                      "size must exceed {}",
                      fmt::join(p.sizes(), ", "), window_size_, pad));
    }
  }
  double span;
  if (options_.data_range) {
    std::tie(p, t) = clamp_to_range(*options_.data_range, p, t);
    span = data_range_span(name(), *options_.data_range);
  } else {
    span = std::max((p.max() - p.min()).item<double>(), (t.max() - t.min()).item<double>());
  }
  const double c1 = std::pow(options_.k1 * span, 2);
  const double c2 = std::pow(options_.k2 * span, 2);

  const auto window = image_window(p.size(1), spatial_dims, window_size_,
                                   options_.gaussian_kernel ? options_.sigma : 0, p.device());
  const auto local = local_statistics(p, t, window);
  const auto& mu_p = local.mean_preds;
  const auto& mu_t = local.mean_target;
  const auto map =
      ((2 * mu_p * mu_t + c1) * (2 * local.covariance + c2)) /
      ((mu_p.square() + mu_t.square() + c1) * (local.var_preds + local.var_target + c2));
  const int64_t n = p.size(0);
  const auto per_image = map.reshape({n, -1}).mean(1);
  if (options_.reduction == "none") {
    append(similarity_, per_image);
  } else {
    state(similarity_).add_(per_image.sum());
  }
  state(total_).add_(static_cast<double>(n));
}

at::Tensor StructuralSimilarityIndexMeasure::compute_value() {
  if (options_.reduction == "none") return cat_state(similarity_);
  if (options_.reduction == "sum") return state(similarity_).clone();
  return state(similarity_) / state(total_);
}

}  // namespace fulgur::metrics
