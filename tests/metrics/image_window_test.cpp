// The sliding-window image metrics: RootMeanSquaredErrorUsingSlidingWindow and
// RelativeAverageSpectralError against scipy.ndimage's uniform_filter (mode
// "reflect": the image mirrored with its edge repeated),
// SpatialCorrelationCoefficient against scipy.signal.convolve2d (boundary
// "symm") and a zero-padded uniform_filter; torchmetrics' documented values
// (its doctests seed torch with 42, and LibTorch draws the same numbers); the
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/relative_average_spectral_error.h"
#include "fulgur/metrics/image/root_mean_squared_error_using_sliding_window.h"
#include "fulgur/metrics/image/spatial_correlation_coefficient.h"
#include "fulgur/metrics/metric_error.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

const char *kWindows =
    "from scipy import ndimage, signal\n"
    "def rmse_map(p, t, w):\n"
    "    return np.sqrt(ndimage.uniform_filter((t - p) ** 2, (1, 1, w, w), "
    "mode='reflect'))\n"
    "def crop(x, c):\n"
    "    return x[..., c:x.shape[-2] - c, c:x.shape[-1] - c]\n"
    "def rmse_sw(p, t, w=8):\n"
    "    return crop(rmse_map(p, t, w), round(w / 2)).mean()\n"
    "def rase(p, t, w=8):\n"
    "    m = rmse_map(p, t, w).mean(0)\n"
    "    tm = (ndimage.uniform_filter(t, (1, 1, w, w), mode='reflect') / w ** "
    "2).mean((0, 1))\n"
    "    return crop(100 / tm * np.sqrt((m ** 2).mean(0)), round(w / "
    "2)).mean()\n"
    "def scc(p, t, hp=((-1, -1, -1), (-1, 8, -1), (-1, -1, -1)), w=8):\n"
    "    if p.ndim == 3:\n"
    "        p, t = p[:, None], t[:, None]\n"
    "    high = lambda x: 2 * np.array([[signal.convolve2d(c, np.array(hp, "
    "float), mode='same',\n"
    "                                                      boundary='symm') "
    "for c in i] for i in x])\n"
    "    box = lambda x: ndimage.uniform_filter(x, (1, 1, w, w), "
    "mode='constant')\n"
    "    hp_p, hp_t = high(p), high(t)\n"
    "    mp, mt = box(hp_p), box(hp_t)\n"
    "    vp = np.maximum(box(hp_p * hp_p) - mp ** 2, 0)\n"
    "    vt = np.maximum(box(hp_t * hp_t) - mt ** 2, 0)\n"
    "    cov = box(hp_p * hp_t) - mp * mt\n"
    "    den = np.sqrt(vt) * np.sqrt(vp)\n"
    "    return np.where(den == 0, 0, cov / np.where(den == 0, 1, "
    "den)).mean((1, 2, 3))\n";

std::pair<at::Tensor, at::Tensor> noisy_images(std::vector<int64_t> shape) {
  const auto target = torch::rand(shape, torch::kDouble) + 0.1;
  const auto preds = target + 0.2 * torch::randn(shape, torch::kDouble);
  return {preds, target};
}

std::string arrays(const at::Tensor &preds, const at::Tensor &target) {
  return std::string(kWindows) + "P = np.array(" + py(preds) +
         ")\nT = np.array(" + py(target) + ")\n";
}

// torchmetrics' doctest inputs: torch.manual_seed(42), then two draws of
// `shape`.
std::pair<at::Tensor, at::Tensor> doctest_inputs(std::vector<int64_t> shape,
                                                 bool normal) {
  torch::manual_seed(42);
  auto draw = [&] { return normal ? torch::randn(shape) : torch::rand(shape); };
  auto preds = draw();
  return {preds, draw()};
}

TEST(RootMeanSquaredErrorUsingSlidingWindow, MatchesScipyUniformFilter) {
  torch::manual_seed(21);
  const auto [preds, target] = noisy_images({7, 2, 14, 15});
  std::vector<Check> checks;
  // Even and odd windows; round(w / 2) rounds halves to even: 3 -> 2, 5 -> 2, 7
  // -> 4, 1 -> 0.
  for (const int64_t window : {8, 5, 7, 3, 1}) {
    RootMeanSquaredErrorUsingSlidingWindow metric({.window_size = window});
    checks.push_back({"window " + std::to_string(window),
                      feed(metric, preds, target),
                      "rmse_sw(P, T, " + std::to_string(window) + ")"});
  }
  expect_reference(arrays(preds, target), checks, 1e-9);

  const auto [p, t] = doctest_inputs({4, 3, 16, 16}, false);
  RootMeanSquaredErrorUsingSlidingWindow documented;
  EXPECT_NEAR(documented.forward(p, t).item<double>(), 0.4158, 5e-5);
  EXPECT_EQ(documented.higher_is_better(), false);
  RootMeanSquaredErrorUsingSlidingWindow same;
  EXPECT_EQ(same.forward(p, p).item<double>(), 0.0);
}

TEST(RelativeAverageSpectralError, MatchesScipyUniformFilter) {
  torch::manual_seed(22);
  const auto [preds, target] = noisy_images({6, 3, 13, 12});
  std::vector<Check> checks;
  for (const int64_t window : {8, 5, 3}) {
    RelativeAverageSpectralError metric({.window_size = window});
    checks.push_back({"window " + std::to_string(window),
                      feed(metric, preds, target),
                      "rase(P, T, " + std::to_string(window) + ")"});
  }
  expect_reference(arrays(preds, target), checks, 1e-9);

  const auto [p, t] = doctest_inputs({4, 3, 16, 16}, false);
  RelativeAverageSpectralError documented;
  EXPECT_NEAR(documented.forward(p, t).item<double>(), 5326.40, 5e-3);
  // The per-pixel maps are kept for every image: a state dict carries them.
  RelativeAverageSpectralError restored;
  restored.load_state_dict(documented.state_dict());
  EXPECT_NEAR(restored.compute().item<double>(), 5326.40, 5e-3);
}

TEST(SpatialCorrelationCoefficient, MatchesScipyConvolution) {
  torch::manual_seed(23);
  const auto [preds, target] = noisy_images({6, 2, 12, 13});
  std::vector<Check> checks;
  SpatialCorrelationCoefficient laplacian;
  checks.push_back({"laplacian, window 8", feed(laplacian, preds, target),
                    "scc(P, T).mean()"});
  // A kernel that is not symmetric tells a convolution from a correlation.
  const auto kernel =
      torch::tensor({{0.0, 1.0, 0.0}, {2.0, -6.0, 1.0}, {0.0, 1.0, 1.0}});
  SpatialCorrelationCoefficient skewed(
      {.high_pass_filter = kernel, .window_size = 5});
  checks.push_back({"skewed kernel, window 5", feed(skewed, preds, target),
                    "scc(P, T, " + py(kernel) + ", 5).mean()"});
  SpatialCorrelationCoefficient grayscale({.window_size = 3});
  checks.push_back({"grayscale [N, H, W], window 3",
                    feed(grayscale, preds.select(1, 0), target.select(1, 0)),
                    "scc(P[:, 0], T[:, 0], w=3).mean()"});
  expect_reference(arrays(preds, target), checks, 1e-9);

  const auto [p, t] = doctest_inputs({32, 3, 64, 64}, true);
  SpatialCorrelationCoefficient documented;
  EXPECT_NEAR(documented.forward(p, t).item<double>(), 0.0023, 5e-5);
  SpatialCorrelationCoefficient same;
  EXPECT_NEAR(same.forward(preds, preds).item<double>(), 1.0, 1e-12);
  // Flat images have no high frequencies: no deviation, counted as 0.
  SpatialCorrelationCoefficient flat;
  EXPECT_EQ(flat.forward(torch::ones({2, 1, 9, 9}), torch::rand({2, 1, 9, 9}))
                .item<double>(),
            0.0);
}

TEST(SlidingWindowImageMetrics, BadInputIsAClearError) {
  EXPECT_THAT(
      [] { RootMeanSquaredErrorUsingSlidingWindow({.window_size = 0}); },
      Throws<ConfigError>("RootMeanSquaredErrorUsingSlidingWindow",
                          "window_size must be a positive integer, not 0"));
  RootMeanSquaredErrorUsingSlidingWindow rmse_sw;
  EXPECT_THAT(
      [&] {
        rmse_sw.update(torch::zeros({1, 1, 8, 20}),
                       torch::zeros({1, 1, 8, 20}));
      },
      Throws<MetricError>("images of 8x20 are too small for window_size 8",
                          "height and width must exceed 8"));
  EXPECT_THAT(
      [&] {
        rmse_sw.update(torch::zeros({2, 9, 9}), torch::zeros({2, 9, 9}));
      },
      Throws<MetricError>("RootMeanSquaredErrorUsingSlidingWindow",
                          "[N, C, H, W], not [2, 9, 9]"));

  EXPECT_THAT([] { RelativeAverageSpectralError({.window_size = -1}); },
              Throws<ConfigError>("RelativeAverageSpectralError", "not -1"));
  RelativeAverageSpectralError rase;
  rase.update(torch::rand({2, 3, 10, 10}), torch::rand({2, 3, 10, 10}));
  rase.update(torch::rand({1, 3, 10, 11}), torch::rand({1, 3, 10, 11}));
  EXPECT_THAT(
      [&] { rase.compute(); },
      Throws<MetricError>(
          "RelativeAverageSpectralError: every image must have one shape",
          "[3, 10, 10] and [3, 10, 11]"));

  EXPECT_THAT([] { SpatialCorrelationCoefficient({.window_size = 0}); },
              Throws<ConfigError>("SpatialCorrelationCoefficient", "not 0"));
  EXPECT_THAT(
      [] {
        SpatialCorrelationCoefficient({.high_pass_filter = torch::ones({3})});
      },
      Throws<ConfigError>("high_pass_filter must be a non-empty 2-D kernel",
                          "not [3]"));
  SpatialCorrelationCoefficient scc;
  EXPECT_THAT(
      [&] {
        scc.update(torch::zeros({1, 1, 6, 20}), torch::zeros({1, 1, 6, 20}));
      },
      Throws<MetricError>("images of 6x20 are smaller than window_size 8",
                          "half-size 1"));
  EXPECT_THAT(
      [&] {
        scc.update(torch::zeros({1, 1, 1, 9, 9}),
                   torch::zeros({1, 1, 1, 9, 9}));
      },
      Throws<MetricError>("[N, C, H, W] or [N, H, W]", "not [1, 1, 1, 9, 9]"));
}

} // namespace
} // namespace fulgur::metrics
