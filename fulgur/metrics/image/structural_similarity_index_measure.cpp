#include "fulgur/metrics/image/structural_similarity_index_measure.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

StructuralSimilarityIndexMeasure::StructuralSimilarityIndexMeasure(
    StructuralSimilarityIndexMeasureOptions options)
    : Metric("StructuralSimilarityIndexMeasure"), options_(std::move(options)) {
  check_similarity_options(name(), options_);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  similarity_ = options_.reduction == "none"
                    ? add_state("similarity", at::zeros({0}, doubles), Reduction::Cat)
                    : add_state("similarity", at::zeros({}, doubles), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
}

void StructuralSimilarityIndexMeasure::update_state(const at::Tensor& preds,
                                                    const at::Tensor& target) {
  auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() >= 4 && p.size(0) == 0) return;  // no images: nothing to add (and no range to read)
  const auto per_image = similarity_scores(name(), p, t, options_).similarity;
  if (options_.reduction == "none") {
    append(similarity_, per_image);
  } else {
    state(similarity_).add_(per_image.sum());
  }
  state(total_).add_(static_cast<double>(per_image.size(0)));
}

at::Tensor StructuralSimilarityIndexMeasure::compute_value() {
  if (options_.reduction == "none") return cat_state(similarity_);
  if (options_.reduction == "sum") return state(similarity_).clone();
  return state(similarity_) / state(total_);
}

}  // namespace fulgur::metrics
