#include "fulgur/metrics/fleiss_kappa.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/option_choice.h"

namespace fulgur::metrics {

FleissKappa::FleissKappa(FleissKappaOptions options)
    : Metric("FleissKappa"), mode_(std::move(options.mode)) {
  check_choice(name(), "mode", mode_, {"counts", "probs"});
  counts_ =
      add_state("counts", at::zeros({0}, at::TensorOptions().dtype(at::kDouble)), Reduction::Cat);
  categories_ = add_state("num_categories", at::zeros({0}, at::TensorOptions().dtype(at::kLong)),
                          Reduction::Cat);
}

void FleissKappa::update_state(const at::Tensor& ratings, const at::Tensor& unused) {
  if (!ratings.defined() || unused.defined()) {
    fail("update() takes the ratings alone: update(ratings)");
  }
  at::Tensor counts;
  if (mode_ == "counts") {
    if (ratings.dim() != 2 || ratings.is_floating_point()) {
      fail(
          fmt::format("with mode \"counts\", ratings must be integer counts [n_samples, "
                      "n_categories], not {} [{}]",
                      c10::toString(ratings.scalar_type()), fmt::join(ratings.sizes(), ", ")));
    }
    counts = ratings.detach();
  } else {
    if (ratings.dim() != 3 || !ratings.is_floating_point()) {
      fail(
          fmt::format("with mode \"probs\", ratings must be floating [n_samples, n_categories, "
                      "n_raters], not {} [{}]",
                      c10::toString(ratings.scalar_type()), fmt::join(ratings.sizes(), ", ")));
    }
    counts = at::one_hot(ratings.detach().argmax(1), ratings.size(1)).sum(1);
  }
  append(counts_, counts.reshape({-1}));
  append(categories_, at::full({1}, counts.size(1), at::TensorOptions().dtype(at::kLong)));
}

at::Tensor FleissKappa::compute_value() {
  const auto categories = cat_state(categories_).cpu();
  const int64_t width = categories[0].item<int64_t>();
  const auto others = categories.masked_select(categories.ne(width));
  if (others.numel() > 0) {
    fail(fmt::format("every update must rate the same number of categories; saw {} and {}", width,
                     others[0].item<int64_t>()));
  }
  const auto counts = cat_state(counts_).reshape({-1, width});
  const auto raters = counts.sum(1).max();
  if (raters.item<double>() < 2) {
    fail("agreement needs at least two raters per sample");
  }
  const double samples = static_cast<double>(counts.size(0));
  const auto shares = counts.sum(0) / (samples * raters);
  const auto agreement = ((counts.square().sum(1) - raters) / (raters * (raters - 1))).mean();
  const auto chance = shares.square().sum();
  return (agreement - chance) / (1 - chance + 1e-5);
}

}  // namespace fulgur::metrics
