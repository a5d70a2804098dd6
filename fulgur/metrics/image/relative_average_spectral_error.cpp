#include "fulgur/metrics/image/relative_average_spectral_error.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "fulgur/metrics/image/sliding_window.h"

namespace fulgur::metrics {

RelativeAverageSpectralError::RelativeAverageSpectralError(
    RelativeAverageSpectralErrorOptions options)
    : Metric("RelativeAverageSpectralError"), window_size_(options.window_size) {
  check_window_size(name(), window_size_);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  rmse_map_ = add_state("rmse_map", at::zeros({0}, doubles), Reduction::Cat);
  target_mean_ = add_state("target_mean", at::zeros({0}, doubles), Reduction::Cat);
  image_shape_ = add_state("image_shape", at::zeros({0, 3}, at::TensorOptions().dtype(at::kLong)),
                           Reduction::Cat);
}

void RelativeAverageSpectralError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto map = windowed_rmse_map(name(), preds, target, window_size_);
  const auto local_mean =
      box_mean(target.detach().to(at::kDouble), window_size_, WindowBorder::Symmetric) /
      static_cast<double>(window_size_ * window_size_);
  append(rmse_map_, map.reshape({-1}));
  append(target_mean_, local_mean.reshape({-1}));
  const auto shape = at::tensor(map.sizes().slice(1).vec(), at::TensorOptions().dtype(at::kLong));
  append(image_shape_, shape.repeat({map.size(0), 1}));
}

at::Tensor RelativeAverageSpectralError::compute_value() {
  const auto shapes = cat_state(image_shape_).cpu().contiguous();
  if (shapes.size(0) == 0) fail("no images were seen");
  const auto rows = shapes.accessor<int64_t, 2>();
  const std::vector<int64_t> image{rows[0][0], rows[0][1], rows[0][2]};
  for (int64_t i = 1; i < shapes.size(0); ++i) {
    const std::vector<int64_t> other{rows[i][0], rows[i][1], rows[i][2]};
    if (other != image) {
      fail(fmt::format("every image must have one shape, but images of [{}] and [{}] were seen",
                       fmt::join(image, ", "), fmt::join(other, ", ")));
    }
  }
  std::vector<int64_t> shape{shapes.size(0)};
  shape.insert(shape.end(), image.begin(), image.end());
  const auto rmse_map = cat_state(rmse_map_).reshape(shape).mean(0);  // [C, H, W]
  const auto target_mean =
      cat_state(target_mean_).reshape(shape).mean(at::IntArrayRef{0, 1});  // [H, W]
  const auto rase_map = 100 / target_mean * rmse_map.square().mean(0).sqrt();
  const int64_t crop = window_crop(window_size_);
  return rase_map.slice(0, crop, rase_map.size(0) - crop)
      .slice(1, crop, rase_map.size(1) - crop)
      .mean();
}

}  // namespace fulgur::metrics
