// The image metrics: PeakSignalNoiseRatio, TotalVariation, UniversalImageQualityIndex,
// SpectralAngleMapper and ErrorRelativeGlobalDimensionlessSynthesis against numpy, and
// StructuralSimilarityIndexMeasure and MultiScaleStructuralSimilarityIndexMeasure (2x2 mean
// pooling between scales) against scipy.ndimage's Gaussian and uniform filters (mode
// "mirror" is torch's reflect padding; truncate 3.5 gives torchmetrics' window size); the
// reductions, data ranges, 3-D volumes and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/image/error_relative_global_dimensionless_synthesis.h"
#include "fulgur/metrics/image/multi_scale_structural_similarity_index_measure.h"
#include "fulgur/metrics/image/peak_signal_noise_ratio.h"
#include "fulgur/metrics/image/spectral_angle_mapper.h"
#include "fulgur/metrics/image/structural_similarity_index_measure.h"
#include "fulgur/metrics/image/total_variation.h"
#include "fulgur/metrics/image/universal_image_quality_index.h"
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

const char* kImage =
    "from scipy import ndimage\n"
    "def psnr(p, t, R, base=10.0, axes=None):\n"
    "    se = (p - t) ** 2\n"
    "    mse = se.mean() if axes is None else se.mean(axis=axes).ravel()\n"
    "    return 10 * np.log(R ** 2 / mse) / np.log(base)\n"
    "def tv(x):\n"
    "    return (np.abs(np.diff(x, axis=2)).sum((1, 2, 3)) +\n"
    "            np.abs(np.diff(x, axis=3)).sum((1, 2, 3)))\n"
    "def ssim_parts(p, t, R, gauss=True, sigma=1.5, k=11, k1=0.01, k2=0.03):\n"
    "    if R is None:\n"
    "        R = max(p.max() - p.min(), t.max() - t.min())\n"
    "    spatial = p.ndim - 2\n"
    "    if gauss:\n"
    "        f = lambda x: ndimage.gaussian_filter(x, (0, 0) + (sigma,) * spatial,\n"
    "                                              mode='mirror', truncate=3.5)\n"
    "    else:\n"
    "        f = lambda x: ndimage.uniform_filter(x, (1, 1) + (k,) * spatial, mode='mirror')\n"
    "    mp, mt = f(p), f(t)\n"
    "    vp = np.maximum(f(p * p) - mp ** 2, 0)\n"
    "    vt = np.maximum(f(t * t) - mt ** 2, 0)\n"
    "    cov = f(p * t) - mp * mt\n"
    "    c1, c2 = (k1 * R) ** 2, (k2 * R) ** 2\n"
    "    cs = (2 * cov + c2) / (vp + vt + c2)\n"
    "    m = (2 * mp * mt + c1) / (mp ** 2 + mt ** 2 + c1) * cs\n"
    "    pad = int(3.5 * sigma + 0.5) if gauss else (k - 1) // 2\n"
    "    crop = (slice(None),) * 2 + (slice(pad, -pad),) * spatial\n"
    "    per_image = lambda x: x.mean(axis=tuple(range(1, x.ndim)))\n"
    "    return per_image(m), per_image(cs[crop])\n"
    "def ssim(*args, **kwargs):\n"
    "    return ssim_parts(*args, **kwargs)[0]\n"
    "def pool(x):\n"
    "    for axis in range(2, x.ndim):\n"
    "        n = x.shape[axis] // 2 * 2\n"
    "        x = np.take(x, range(0, n, 2), axis=axis) + np.take(x, range(1, n, 2), axis=axis)\n"
    "        x = x / 2\n"
    "    return x\n"
    "def ms_ssim(p, t, R, betas=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), normalize='relu',\n"
    "            clip=(-np.inf, np.inf), **kw):\n"
    "    terms = []\n"
    "    for i in range(len(betas)):\n"
    "        if i:\n"
    "            p, t = pool(p), pool(t)\n"
    "        s, cs = ssim_parts(np.clip(p, *clip), np.clip(t, *clip), R, **kw)\n"
    "        terms.append(cs if i + 1 < len(betas) else s)\n"
    "    x = np.stack(terms)\n"
    "    if normalize == 'relu':\n"
    "        x = np.maximum(x, 0)\n"
    "    if normalize == 'simple':\n"
    "        x = (x + 1) / 2\n"
    "    return np.prod(x ** np.array(betas)[:, None], 0)\n";

std::pair<at::Tensor, at::Tensor> noisy_images(std::vector<int64_t> shape) {
  const auto target = torch::rand(shape, torch::kDouble);
  const auto preds = (target + 0.15 * torch::randn(shape, torch::kDouble)).clamp(0, 1);
  return {preds, target};
}

std::string arrays(const at::Tensor& preds, const at::Tensor& target) {
  return std::string(kImage) + "P = np.array(" + py(preds) + ")\nT = np.array(" + py(target) +
         ")\n";
}

TEST(PeakSignalNoiseRatio, MatchesNumpy) {
  torch::manual_seed(8);
  const auto [preds, target] = noisy_images({7, 2, 6, 5});
  std::vector<Check> checks;
  PeakSignalNoiseRatio whole({.data_range = 1.0});
  checks.push_back({"whole", feed(whole, preds, target), "psnr(P, T, 1.0)"});
  PeakSignalNoiseRatio natural({.data_range = 1.0, .base = std::exp(1.0)});
  checks.push_back({"base e", feed(natural, preds, target), "psnr(P, T, 1.0, np.e)"});
  PeakSignalNoiseRatio per_image({.data_range = 1.0, .dim = {1, 2, 3}});
  checks.push_back({"per image, mean", feed(per_image, preds, target),
                    "psnr(P, T, 1.0, axes=(1, 2, 3)).mean()"});
  PeakSignalNoiseRatio summed({.data_range = 1.0, .reduction = "sum", .dim = {1, -2, -1}});
  checks.push_back(
      {"per image, sum", feed(summed, preds, target), "psnr(P, T, 1.0, axes=(1, 2, 3)).sum()"});
  PeakSignalNoiseRatio per_channel({.data_range = 1.0, .reduction = "none", .dim = {2, 3}});
  checks.push_back(
      {"per channel, none", feed(per_channel, preds, target), "psnr(P, T, 1.0, axes=(2, 3))"});
  // A (min, max) range clamps both sides first, then uses its span.
  PeakSignalNoiseRatio clamped({.data_range = std::pair{0.2, 0.7}});
  checks.push_back({"clamped", feed(clamped, preds, target),
                    "psnr(np.clip(P, 0.2, 0.7), np.clip(T, 0.2, 0.7), 0.5)"});
  // 8-bit images count as floats.
  PeakSignalNoiseRatio bytes({.data_range = 255.0});
  const auto p8 = (preds * 255).round().to(torch::kUInt8);
  const auto t8 = (target * 255).round().to(torch::kUInt8);
  checks.push_back(
      {"uint8", feed(bytes, p8, t8), "psnr(np.round(P * 255), np.round(T * 255), 255.0)"});
  expect_reference(arrays(preds, target), checks, 1e-9);
  EXPECT_FALSE(per_channel.is_scalar());
  EXPECT_TRUE(summed.is_scalar());
  EXPECT_EQ(per_channel.compute().sizes(), (std::vector<int64_t>{14}));
  // Identical images: an infinite ratio.
  PeakSignalNoiseRatio same({.data_range = 1.0});
  EXPECT_TRUE(std::isinf(same.forward(target, target).item<double>()));
}

TEST(TotalVariation, MatchesNumpy) {
  torch::manual_seed(9);
  const auto images = torch::rand({9, 3, 5, 6}, torch::kDouble);
  TotalVariation summed;
  TotalVariation mean({.reduction = "mean"});
  TotalVariation none({.reduction = "none"});
  for (auto* metric : {&summed, &mean, &none}) {
    metric->update(images.slice(0, 0, 4));
    metric->update(images.slice(0, 4));
  }
  expect_reference(std::string(kImage) + "X = np.array(" + py(images) + ")\n",
                   {{"sum", summed.compute(), "tv(X).sum()"},
                    {"mean", mean.compute(), "tv(X).mean()"},
                    {"none", none.compute(), "tv(X)"}},
                   1e-9);
  EXPECT_EQ(summed.higher_is_better(), false);
  EXPECT_FALSE(none.is_scalar());
  // A constant image has no variation; a checkerboard of 2x2 has 4 unit steps.
  TotalVariation flat;
  EXPECT_EQ(flat.forward(torch::ones({1, 1, 3, 3})).item<double>(), 0.0);
  EXPECT_EQ(flat.forward(torch::tensor({{{{0.0, 1.0}, {1.0, 0.0}}}})).item<double>(), 4.0);
}

TEST(StructuralSimilarityIndexMeasure, MatchesScipyFilters) {
  torch::manual_seed(10);
  const auto [preds, target] = noisy_images({7, 2, 12, 13});
  std::vector<Check> checks;
  StructuralSimilarityIndexMeasure gaussian({.data_range = 1.0});
  checks.push_back({"gaussian", feed(gaussian, preds, target), "ssim(P, T, 1.0).mean()"});
  StructuralSimilarityIndexMeasure none({.reduction = "none", .data_range = 1.0});
  checks.push_back({"none", feed(none, preds, target), "ssim(P, T, 1.0)"});
  StructuralSimilarityIndexMeasure summed({.sigma = 1.0, .reduction = "sum", .data_range = 1.0});
  checks.push_back(
      {"sigma 1, sum", feed(summed, preds, target), "ssim(P, T, 1.0, sigma=1.0).sum()"});
  StructuralSimilarityIndexMeasure uniform(
      {.gaussian_kernel = false, .kernel_size = 7, .data_range = 1.0, .k1 = 0.02, .k2 = 0.05});
  checks.push_back({"uniform 7, k1 k2", feed(uniform, preds, target),
                    "ssim(P, T, 1.0, gauss=False, k=7, k1=0.02, k2=0.05).mean()"});
  StructuralSimilarityIndexMeasure clamped({.data_range = std::pair{0.1, 0.9}});
  checks.push_back({"clamped", feed(clamped, preds, target),
                    "ssim(np.clip(P, 0.1, 0.9), np.clip(T, 0.1, 0.9), 0.8).mean()"});
  // Without data_range, the batch's own range.
  StructuralSimilarityIndexMeasure own_range;
  checks.push_back(
      {"own range", own_range.forward(preds * 3, target * 2), "ssim(P * 3, T * 2, None).mean()"});
  expect_reference(arrays(preds, target), checks, 1e-9);
  // Identical images are 1.
  StructuralSimilarityIndexMeasure same({.data_range = 1.0});
  EXPECT_NEAR(same.forward(target, target).item<double>(), 1.0, 1e-12);
}

TEST(StructuralSimilarityIndexMeasure, VolumesMatchScipy) {
  torch::manual_seed(11);
  const auto [preds, target] = noisy_images({3, 1, 6, 7, 8});
  StructuralSimilarityIndexMeasure gaussian({.sigma = 1.0, .data_range = 1.0});
  StructuralSimilarityIndexMeasure uniform(
      {.gaussian_kernel = false, .kernel_size = 5, .reduction = "none", .data_range = 1.0});
  expect_reference(
      arrays(preds, target),
      {{"gaussian", feed(gaussian, preds, target), "ssim(P, T, 1.0, sigma=1.0).mean()"},
       {"uniform", feed(uniform, preds, target), "ssim(P, T, 1.0, gauss=False, k=5)"}},
      1e-9);
}

TEST(MultiScaleStructuralSimilarityIndexMeasure, MatchesScipyFilters) {
  torch::manual_seed(12);
  const auto [preds, target] = noisy_images({5, 2, 48, 53});
  const std::vector<double> betas{0.2, 0.3, 0.5};
  std::vector<Check> checks;
  MultiScaleStructuralSimilarityIndexMeasure relu(
      {.sigma = 1.0, .data_range = 1.0, .betas = betas});
  checks.push_back(
      {"relu", feed(relu, preds, target), "ms_ssim(P, T, 1.0, betas, sigma=1.0).mean()"});
  MultiScaleStructuralSimilarityIndexMeasure simple({.sigma = 1.0,
                                                     .reduction = "none",
                                                     .data_range = 1.0,
                                                     .betas = betas,
                                                     .normalize = "simple"});
  checks.push_back({"simple, none", feed(simple, preds, target),
                    "ms_ssim(P, T, 1.0, betas, 'simple', sigma=1.0)"});
  // A (min, max) range clamps each scale's images, pooled from the unclamped ones (as
  // torchmetrics).
  MultiScaleStructuralSimilarityIndexMeasure raw({.gaussian_kernel = false,
                                                  .kernel_size = 5,
                                                  .reduction = "sum",
                                                  .data_range = std::pair{0.1, 0.9},
                                                  .k1 = 0.02,
                                                  .k2 = 0.05,
                                                  .betas = betas,
                                                  .normalize = std::nullopt});
  checks.push_back({"uniform 5, clamped, no normalize, sum", feed(raw, preds, target),
                    "ms_ssim(P, T, 0.8, betas, None, (0.1, 0.9), gauss=False, k=5, k1=0.02, "
                    "k2=0.05).sum()"});
  // Without data_range, each scale's own range (of the pooled images).
  MultiScaleStructuralSimilarityIndexMeasure own_range({.sigma = 1.0, .betas = betas});
  checks.push_back({"own range", own_range.forward(preds * 3, target * 2),
                    "ms_ssim(P * 3, T * 2, None, betas, sigma=1.0).mean()"});
  expect_reference(arrays(preds, target) + "betas = (0.2, 0.3, 0.5)\n", checks, 1e-9);
  // Anti-correlated images have negative terms: "relu" makes them 0, and the product 0; without
  // normalize a negative term to a fractional power is a NaN, as in torchmetrics.
  MultiScaleStructuralSimilarityIndexMeasure clipped(
      {.sigma = 1.0, .data_range = 1.0, .betas = betas});
  EXPECT_EQ(clipped.forward(1 - target, target).item<double>(), 0.0);
  MultiScaleStructuralSimilarityIndexMeasure unclipped(
      {.sigma = 1.0, .data_range = 1.0, .betas = betas, .normalize = std::nullopt});
  EXPECT_TRUE(std::isnan(unclipped.forward(1 - target, target).item<double>()));
  EXPECT_FALSE(simple.is_scalar());
  EXPECT_EQ(simple.compute().sizes(), (std::vector<int64_t>{5}));

  // Volumes pool 2x2x2.
  const auto [vp, vt] = noisy_images({3, 1, 8, 12, 12});
  MultiScaleStructuralSimilarityIndexMeasure volumes(
      {.sigma = 0.5, .data_range = 1.0, .betas = {0.4, 0.6}});
  expect_reference(
      arrays(vp, vt),
      {{"volumes", feed(volumes, vp, vt), "ms_ssim(P, T, 1.0, (0.4, 0.6), sigma=0.5).mean()"}},
      1e-9);

  // torchmetrics' documented value: torch.manual_seed(42), 3 noise images of 3x256x256 against
  // three quarters of themselves.
  torch::manual_seed(42);
  const auto noise = torch::rand({3, 3, 256, 256});
  MultiScaleStructuralSimilarityIndexMeasure documented({.data_range = 1.0});
  EXPECT_NEAR(documented.forward(noise, noise * 0.75).item<double>(), 0.9628, 5e-5);
  MultiScaleStructuralSimilarityIndexMeasure same({.data_range = 1.0});
  EXPECT_NEAR(same.forward(noise, noise).item<double>(), 1.0, 1e-12);
}

const char* kRemoteSensing =
    "def uqi(p, t, k=11, s=1.5):\n"
    "    r = (k - 1) // 2\n"
    "    f = lambda x: ndimage.gaussian_filter(x, (0, 0, s, s), mode='mirror', truncate=r / s)\n"
    "    mp, mt = f(p), f(t)\n"
    "    vp = np.maximum(f(p * p) - mp ** 2, 0)\n"
    "    vt = np.maximum(f(t * t) - mt ** 2, 0)\n"
    "    cov = f(p * t) - mp * mt\n"
    "    eps = np.finfo(np.float64).eps\n"
    "    m = (2 * mp * mt) * (2 * cov) / ((mp ** 2 + mt ** 2) * (vp + vt) + eps)\n"
    "    return m[..., r:-r, r:-r]\n"
    "def sam(p, t):\n"
    "    c = (p * t).sum(1) / (np.linalg.norm(p, axis=1) * np.linalg.norm(t, axis=1))\n"
    "    return np.arccos(np.clip(c, -1, 1))\n"
    "def ergas(p, t, ratio=4.0):\n"
    "    n, c = p.shape[:2]\n"
    "    pp, tt = p.reshape(n, c, -1), t.reshape(n, c, -1)\n"
    "    rmse = np.sqrt(((pp - tt) ** 2).mean(2))\n"
    "    return 100 / ratio * np.sqrt(((rmse / tt.mean(2)) ** 2).mean(1))\n";

TEST(ImageMetrics, UqiSamAndErgasMatchNumpy) {
  torch::manual_seed(13);
  const auto [preds, target] = noisy_images({5, 3, 13, 12});
  std::vector<Check> checks;
  UniversalImageQualityIndex uqi;
  checks.push_back({"UQI", feed(uqi, preds, target), "uqi(P, T).mean()"});
  UniversalImageQualityIndex uqi_small({.kernel_size = 7, .sigma = 1.0, .reduction = "sum"});
  checks.push_back({"UQI 7, sum", feed(uqi_small, preds, target), "uqi(P, T, 7, 1.0).sum()"});
  // Clamping left some pixels black in every band, where the angle is undefined (NaN).
  SpectralAngleMapper sam;
  checks.push_back({"SAM", feed(sam, preds + 0.1, target + 0.1), "sam(P + 0.1, T + 0.1).mean()"});
  SpectralAngleMapper sam_sum({.reduction = "sum"});
  checks.push_back(
      {"SAM sum", feed(sam_sum, preds + 0.1, target + 0.1), "sam(P + 0.1, T + 0.1).sum()"});
  ErrorRelativeGlobalDimensionlessSynthesis ergas;
  checks.push_back({"ERGAS", feed(ergas, preds, target), "ergas(P, T).mean()"});
  ErrorRelativeGlobalDimensionlessSynthesis ergas_each({.ratio = 2, .reduction = "none"});
  checks.push_back({"ERGAS ratio 2, none", feed(ergas_each, preds, target), "ergas(P, T, 2.0)"});
  expect_reference(arrays(preds, target) + kRemoteSensing, checks, 1e-9);
  EXPECT_EQ(sam.higher_is_better(), false);
  EXPECT_EQ(ergas.higher_is_better(), false);
  EXPECT_EQ(uqi.higher_is_better(), true);
  EXPECT_FALSE(ergas_each.is_scalar());
  // Identical spectra: no angle and no error; UQI of an image with itself is 1 where it varies.
  SpectralAngleMapper same;
  EXPECT_NEAR(same.forward(target, target).item<double>(), 0.0, 1e-6);
  ErrorRelativeGlobalDimensionlessSynthesis exact;
  EXPECT_EQ(exact.forward(target, target).item<double>(), 0.0);
  UniversalImageQualityIndex itself;
  EXPECT_NEAR(itself.forward(target, target).item<double>(), 1.0, 1e-9);
}

TEST(ImageMetrics, BadInputIsAClearError) {
  EXPECT_THAT([] { PeakSignalNoiseRatio({}); },
              Throws<ConfigError>("PeakSignalNoiseRatio: data_range must be positive", "not 0"));
  EXPECT_THAT(
      [] {
        PeakSignalNoiseRatio({.data_range = std::pair{1.0, 1.0}});
      },
      Throws<ConfigError>("data_range (1, 1) is empty", "must exceed"));
  EXPECT_THAT([] { PeakSignalNoiseRatio({.data_range = 1.0, .base = 1.0}); },
              Throws<ConfigError>("PeakSignalNoiseRatio", "base must be positive and not 1"));
  EXPECT_THAT(
      [] { PeakSignalNoiseRatio({.data_range = 1.0, .reduction = "avg", .dim = {1}}); },
      Throws<ConfigError>("reduction=\"avg\"", "\"elementwise_mean\", \"sum\" or \"none\""));
  ::testing::internal::CaptureStderr();
  PeakSignalNoiseRatio ignored({.data_range = 1.0, .reduction = "none"});
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("reduction=\"none\" has no effect without dim"));
  EXPECT_TRUE(ignored.is_scalar());
  PeakSignalNoiseRatio outside({.data_range = 1.0, .dim = {4}});
  EXPECT_THAT(
      [&] {
        outside.update(torch::zeros({2, 3}), torch::zeros({2, 3}));
      },
      Throws<MetricError>("dim 4 is outside", "[2, 3]"));
  PeakSignalNoiseRatio twice({.data_range = 1.0, .dim = {1, -1}});
  EXPECT_THAT(
      [&] {
        twice.update(torch::zeros({2, 3}), torch::zeros({2, 3}));
      },
      Throws<MetricError>("dim [1, -1]", "dimension 1 twice"));

  EXPECT_THAT([] { TotalVariation({.reduction = "elementwise_mean"}); },
              Throws<ConfigError>("TotalVariation(reduction=\"elementwise_mean\")", "\"mean\""));
  TotalVariation tv;
  EXPECT_THAT(
      [&] {
        tv.update(torch::zeros({3, 4, 5}));
      },
      Throws<MetricError>("img must be [N, C, H, W]", "[3, 4, 5]"));
  EXPECT_THAT(
      [&] {
        tv.update(torch::zeros({1, 1, 2, 2}), torch::zeros({1, 1, 2, 2}));
      },
      Throws<MetricError>("TotalVariation", "takes the images alone"));

  EXPECT_THAT([] { UniversalImageQualityIndex({.reduction = "none"}); },
              Throws<ConfigError>("UniversalImageQualityIndex(reduction=\"none\")",
                                  "\"elementwise_mean\" or \"sum\""));
  EXPECT_THAT([] { UniversalImageQualityIndex({.kernel_size = 0}); },
              Throws<ConfigError>("UniversalImageQualityIndex", "kernel_size must be odd"));
  UniversalImageQualityIndex uqi;
  EXPECT_THAT(
      [&] {
        uqi.update(torch::zeros({1, 1, 10, 20}), torch::zeros({1, 1, 10, 20}));
      },
      Throws<MetricError>("[1, 1, 10, 20] are smaller than the window of 11", "Universal"));
  SpectralAngleMapper sam;
  EXPECT_THAT(
      [&] {
        sam.update(torch::zeros({2, 1, 4, 4}), torch::zeros({2, 1, 4, 4}));
      },
      Throws<MetricError>("SpectralAngleMapper", "C >= 2 bands, not [2, 1, 4, 4]"));
  EXPECT_THAT(
      [] { ErrorRelativeGlobalDimensionlessSynthesis({.ratio = 0}); },
      Throws<ConfigError>("ErrorRelativeGlobalDimensionlessSynthesis", "ratio must be positive"));
  EXPECT_THAT([] { StructuralSimilarityIndexMeasure({.kernel_size = 4}); },
              Throws<ConfigError>("kernel_size must be odd and positive", "not 4"));
  EXPECT_THAT([] { StructuralSimilarityIndexMeasure({.sigma = 0}); },
              Throws<ConfigError>("StructuralSimilarityIndexMeasure", "sigma must be positive"));
  EXPECT_THAT(
      [] { StructuralSimilarityIndexMeasure({.data_range = -1.0}); },
      Throws<ConfigError>("StructuralSimilarityIndexMeasure", "data_range must be positive"));
  EXPECT_THAT(
      [] { MultiScaleStructuralSimilarityIndexMeasure({.betas = {}}); },
      Throws<ConfigError>("MultiScaleStructuralSimilarityIndexMeasure", "betas must not be empty"));
  EXPECT_THAT([] { MultiScaleStructuralSimilarityIndexMeasure({.normalize = "max"}); },
              Throws<ConfigError>("(normalize=\"max\")", "\"relu\" or \"simple\""));
  MultiScaleStructuralSimilarityIndexMeasure ms_ssim({.data_range = 1.0});
  EXPECT_THAT(
      [&] {
        ms_ssim.update(torch::zeros({1, 1, 30, 200}), torch::zeros({1, 1, 30, 200}));
      },
      Throws<MetricError>("images of 30x200 are too small for 5 scales", "at least 32"));
  EXPECT_THAT(
      [&] {
        ms_ssim.update(torch::zeros({1, 1, 170, 200}), torch::zeros({1, 1, 170, 200}));
      },
      Throws<MetricError>("for 5 scales and kernel_size 11", "must exceed 160"));
  StructuralSimilarityIndexMeasure ssim({.data_range = 1.0});
  EXPECT_THAT(
      [&] {
        ssim.update(torch::zeros({2, 1, 5, 20}), torch::zeros({2, 1, 5, 20}));
      },
      Throws<MetricError>("too small for a window of 11", "must exceed 5"));
  EXPECT_THAT(
      [&] {
        ssim.update(torch::zeros({2, 8, 8}), torch::zeros({2, 8, 8}));
      },
      Throws<MetricError>("[N, C, H, W] or [N, C, D, H, W]", "not [2, 8, 8]"));
  EXPECT_THAT(
      [&] {
        ssim.update(torch::zeros({1, 1, 8, 8}), torch::zeros({1, 1, 8, 9}));
      },
      Throws<MetricError>("StructuralSimilarityIndexMeasure", "[1, 1, 8, 9]"));
}

}  // namespace
}  // namespace fulgur::metrics
