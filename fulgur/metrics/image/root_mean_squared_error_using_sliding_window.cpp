#include "fulgur/metrics/image/root_mean_squared_error_using_sliding_window.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/image/sliding_window.h"

namespace fulgur::metrics {

RootMeanSquaredErrorUsingSlidingWindow::RootMeanSquaredErrorUsingSlidingWindow(
    RootMeanSquaredErrorUsingSlidingWindowOptions options)
    : Metric("RootMeanSquaredErrorUsingSlidingWindow"), window_size_(options.window_size) {
  check_window_size(name(), window_size_);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  rmse_sum_ = add_state("rmse_val_sum", at::zeros({}, doubles), Reduction::Sum);
  images_ = add_state("total_images", at::zeros({}, doubles), Reduction::Sum);
}

void RootMeanSquaredErrorUsingSlidingWindow::update_state(const at::Tensor& preds,
                                                          const at::Tensor& target) {
  const auto map = windowed_rmse_map(name(), preds, target, window_size_);
  const int64_t crop = window_crop(window_size_);
  const auto kept = map.slice(2, crop, map.size(2) - crop).slice(3, crop, map.size(3) - crop);
  state(rmse_sum_).add_(kept.mean({1, 2, 3}).sum());
  state(images_).add_(static_cast<double>(map.size(0)));
}

at::Tensor RootMeanSquaredErrorUsingSlidingWindow::compute_value() {
  return state(rmse_sum_) / state(images_);
}

}  // namespace fulgur::metrics
