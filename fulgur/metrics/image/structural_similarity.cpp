#include "fulgur/metrics/image/structural_similarity.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/local_statistics.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/option_choice.h"

namespace fulgur::metrics {

void check_similarity_options(const std::string& metric,
                              const StructuralSimilarityIndexMeasureOptions& options) {
  if (options.kernel_size <= 0 || options.kernel_size % 2 == 0) {
    throw ConfigError(fmt::format("{}: kernel_size must be odd and positive, not {}", metric,
                                  options.kernel_size));
  }
  if (!(options.sigma > 0)) {
    throw ConfigError(fmt::format("{}: sigma must be positive, not {}", metric, options.sigma));
  }
  if (options.data_range) data_range_span(metric, *options.data_range);
  check_choice(metric, "reduction", options.reduction, {"elementwise_mean", "sum", "none"});
}

int64_t similarity_window_size(const StructuralSimilarityIndexMeasureOptions& options) {
  return options.gaussian_kernel ? 2 * static_cast<int64_t>(3.5 * options.sigma + 0.5) + 1
                                 : options.kernel_size;
}

SimilarityScores similarity_scores(const std::string& metric, at::Tensor preds, at::Tensor target,
                                   const StructuralSimilarityIndexMeasureOptions& options) {
  if (preds.dim() != 4 && preds.dim() != 5) {
    throw MetricError(
        fmt::format("{}: preds and target must be [N, C, H, W] or [N, C, D, H, W], not [{}]",
                    metric, fmt::join(preds.sizes(), ", ")));
  }
  const int64_t window_size = similarity_window_size(options);
  const int64_t pad = (window_size - 1) / 2;
  for (int64_t d = 2; d < preds.dim(); ++d) {
    if (preds.size(d) <= pad) {
      throw MetricError(
          fmt::format("{}: images of shape [{}] are too small for a window of {}: each spatial "
                      "size must exceed {}",
                      metric, fmt::join(preds.sizes(), ", "), window_size, pad));
    }
  }
  double span;
  if (options.data_range) {
    std::tie(preds, target) = clamp_to_range(*options.data_range, preds, target);
    span = data_range_span(metric, *options.data_range);
  } else {
    span = std::max((preds.max() - preds.min()).item<double>(),
                    (target.max() - target.min()).item<double>());
  }
  const double c1 = std::pow(options.k1 * span, 2);
  const double c2 = std::pow(options.k2 * span, 2);

  const int64_t spatial_dims = preds.dim() - 2;
  const auto window = image_window(preds.size(1), spatial_dims, window_size,
                                   options.gaussian_kernel ? options.sigma : 0, preds.device());
  const auto local = local_statistics(preds, target, window);
  const auto& mu_p = local.mean_preds;
  const auto& mu_t = local.mean_target;
  const auto contrast = (2 * local.covariance + c2) / (local.var_preds + local.var_target + c2);
  const auto map = (2 * mu_p * mu_t + c1) / (mu_p.square() + mu_t.square() + c1) * contrast;
  auto cropped = contrast;
  for (int64_t d = 2; d < preds.dim() && pad > 0; ++d) {
    cropped = cropped.slice(d, pad, cropped.size(d) - pad);
  }
  return {map.flatten(1).mean(1), cropped.flatten(1).mean(1)};
}

}  // namespace fulgur::metrics
