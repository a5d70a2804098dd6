#include "fulgur/metrics/image/multi_scale_structural_similarity_index_measure.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fulgur/errors.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

MultiScaleStructuralSimilarityIndexMeasure::MultiScaleStructuralSimilarityIndexMeasure(
    MultiScaleStructuralSimilarityIndexMeasureOptions options)
    : Metric("MultiScaleStructuralSimilarityIndexMeasure"),
      ssim_{.gaussian_kernel = options.gaussian_kernel,
            .sigma = options.sigma,
            .kernel_size = options.kernel_size,
            .reduction = std::move(options.reduction),
            .data_range = options.data_range,
            .k1 = options.k1,
            .k2 = options.k2},
      betas_(std::move(options.betas)),
      normalize_(std::move(options.normalize)) {
  check_similarity_options(name(), ssim_);
  if (betas_.empty()) throw ConfigError(fmt::format("{}: betas must not be empty", name()));
  if (normalize_) check_choice(name(), "normalize", *normalize_, {"relu", "simple"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  similarity_ = ssim_.reduction == "none"
                    ? add_state("similarity", at::zeros({0}, doubles), Reduction::Cat)
                    : add_state("similarity", at::zeros({}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

void MultiScaleStructuralSimilarityIndexMeasure::update_state(const at::Tensor& preds,
                                                              const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 4 && p.dim() != 5) {
    fail(fmt::format("preds and target must be [N, C, H, W] or [N, C, D, H, W], not [{}]",
                     fmt::join(p.sizes(), ", ")));
  }
  const auto scales = static_cast<int64_t>(betas_.size());
  const int64_t height = p.size(-2), width = p.size(-1);
  if (height < (int64_t{1} << scales) || width < (int64_t{1} << scales)) {
    fail(
        fmt::format("images of {}x{} are too small for {} scales: height and width must be at "
                    "least {}",
                    height, width, scales, int64_t{1} << scales));
  }
  const int64_t divisor = std::max<int64_t>(1, scales - 1) * std::max<int64_t>(1, scales - 1);
  if (height / divisor <= ssim_.kernel_size - 1 || width / divisor <= ssim_.kernel_size - 1) {
    fail(
        fmt::format("images of {}x{} are too small for {} scales and kernel_size {}: height and "
                    "width must exceed {}",
                    height, width, scales, ssim_.kernel_size, (ssim_.kernel_size - 1) * divisor));
  }
  if (p.size(0) == 0) return;
  std::vector<at::Tensor> terms;
  for (int64_t scale = 0; scale < scales; ++scale) {
    if (scale > 0) {
      p = p.dim() == 4 ? at::avg_pool2d(p, {2, 2}) : at::avg_pool3d(p, {2, 2, 2});
      t = t.dim() == 4 ? at::avg_pool2d(t, {2, 2}) : at::avg_pool3d(t, {2, 2, 2});
    }
    const auto scores = similarity_scores(name(), p, t, ssim_);
    terms.push_back(scale + 1 < scales ? scores.contrast_sensitivity : scores.similarity);
  }
  auto stacked = at::stack(terms);  // [scales, N]
  if (normalize_ == "relu") stacked = stacked.relu();
  if (normalize_ == "simple") stacked = (stacked + 1) / 2;
  const auto betas = at::tensor(betas_, stacked.options()).unsqueeze(1);
  const auto per_image = stacked.pow(betas).prod(0);
  if (ssim_.reduction == "none") {
    append(similarity_, per_image);
  } else {
    state(similarity_).add_(per_image.sum());
  }
  state(total_).add_(static_cast<double>(per_image.size(0)));
}

at::Tensor MultiScaleStructuralSimilarityIndexMeasure::compute_value() {
  if (ssim_.reduction == "none") return cat_state(similarity_);
  if (ssim_.reduction == "sum") return state(similarity_).clone();
  return state(similarity_) / state(total_);
}

}  // namespace fulgur::metrics
