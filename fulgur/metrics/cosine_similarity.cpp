#include "fulgur/metrics/cosine_similarity.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

CosineSimilarity::CosineSimilarity(CosineSimilarityOptions options)
    : Metric("CosineSimilarity"), options_(std::move(options)) {
  const auto& r = options_.reduction;
  if (r != "sum" && r != "mean" && r != "none") {
    throw ConfigError(fmt::format(
        "CosineSimilarity(reduction=\"{}\") is not valid; choose \"sum\", \"mean\" or \"none\"",
        r));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (r == "none") {
    similarity_ = add_state("similarity", at::zeros({0}, doubles), Reduction::Cat);
  } else {
    similarity_ = add_state("similarity", at::zeros({}, doubles), Reduction::Sum);
    total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
  }
}

void CosineSimilarity::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 2) {
    fail(fmt::format("preds and target must be [N, D], not [{}]", fmt::join(p.sizes(), ", ")));
  }
  const auto rows = (p * t).sum(1) / (p.norm(2, 1) * t.norm(2, 1));
  if (options_.reduction == "none") {
    append(similarity_, rows);
  } else {
    state(similarity_).add_(rows.sum());
    state(total_).add_(p.size(0));
  }
}

at::Tensor CosineSimilarity::compute_value() {
  if (options_.reduction == "none") return cat_state(similarity_);
  if (options_.reduction == "sum") return state(similarity_).clone();
  return state(similarity_) / state(total_);
}

}  // namespace fulgur::metrics
