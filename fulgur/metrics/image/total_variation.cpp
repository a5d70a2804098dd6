#include "fulgur/metrics/image/total_variation.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/metrics/option_choice.h"

namespace fulgur::metrics {

TotalVariation::TotalVariation(TotalVariationOptions options)
    : Metric("TotalVariation"), reduction_(std::move(options.reduction)) {
  check_choice(name(), "reduction", reduction_, {"sum", "mean", "none"});
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  score_ = reduction_ == "none" ? add_state("score_list", at::zeros({0}, doubles), Reduction::Cat)
                                : add_state("score", at::zeros({}, doubles), Reduction::Sum);
  images_ = add_state("num_elements", at::zeros({}, at::TensorOptions().dtype(at::kLong)),
                      Reduction::Sum);
}

void TotalVariation::update_state(const at::Tensor& img, const at::Tensor& unused) {
  if (!img.defined() || unused.defined()) {
    fail("update() takes the images alone: update(img) with img [N, C, H, W]");
  }
  if (img.dim() != 4) {
    fail(fmt::format("img must be [N, C, H, W], not [{}]", fmt::join(img.sizes(), ", ")));
  }
  const auto x = img.detach().to(at::kDouble);
  const auto vertical = (x.slice(2, 1) - x.slice(2, 0, -1)).abs().sum({1, 2, 3});
  const auto horizontal = (x.slice(3, 1) - x.slice(3, 0, -1)).abs().sum({1, 2, 3});
  const auto scores = vertical + horizontal;
  if (reduction_ == "none") {
    append(score_, scores);
  } else {
    state(score_).add_(scores.sum());
  }
  state(images_).add_(x.size(0));
}

at::Tensor TotalVariation::compute_value() {
  if (reduction_ == "none") return cat_state(score_);
  if (reduction_ == "sum") return state(score_).clone();
  return state(score_) / state(images_).to(at::kDouble);
}

}  // namespace fulgur::metrics
