#include "fulgur/metrics/image/local_statistics.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

at::Tensor image_window(int64_t channels, int64_t spatial_dims, int64_t size, double sigma,
                        const c10::Device& device) {
  const auto doubles = at::TensorOptions().dtype(at::kDouble).device(device);
  auto line = at::ones({size}, doubles);
  if (sigma > 0) {
    const auto offsets = at::arange(size, doubles) - static_cast<double>(size - 1) / 2;
    line = (-(offsets / sigma).square() / 2).exp();
  }
  line = line / line.sum();
  auto kernel = line;
  for (int64_t d = 1; d < spatial_dims; ++d) kernel = kernel.unsqueeze(-1) * line;
  std::vector<int64_t> shape{channels, 1};
  shape.insert(shape.end(), spatial_dims, size);
  return kernel.expand(shape).contiguous();
}

LocalStatistics local_statistics(const at::Tensor& preds, const at::Tensor& target,
                                 const at::Tensor& window) {
  const int64_t spatial_dims = preds.dim() - 2;
  const int64_t n = preds.size(0), channels = preds.size(1);
  const std::vector<int64_t> padding(2 * spatial_dims, (window.size(-1) - 1) / 2);
  auto stacked = at::cat({preds, target, preds * preds, target * target, preds * target});
  stacked = spatial_dims == 2 ? at::reflection_pad2d(stacked, padding)
                              : at::reflection_pad3d(stacked, padding);
  const std::vector<int64_t> ones(spatial_dims, 1), zeros(spatial_dims, 0);
  const auto local =
      spatial_dims == 2
          ? at::conv2d(stacked, window, at::Tensor(), ones, at::IntArrayRef(zeros), ones, channels)
          : at::conv3d(stacked, window, at::Tensor(), ones, at::IntArrayRef(zeros), ones, channels);
  const auto parts = local.split(n);
  const auto& mean_p = parts[0];
  const auto& mean_t = parts[1];
  return {mean_p, mean_t, (parts[2] - mean_p.square()).clamp_min(0),
          (parts[3] - mean_t.square()).clamp_min(0), parts[4] - mean_p * mean_t};
}

}  // namespace fulgur::metrics
