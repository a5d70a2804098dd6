// CalibrationError: torchmetrics' documented values for each norm, binary and multiclass
// against sklearn's calibration_curve (its per-bin accuracy and confidence, weighted by numpy's
// bin counts), ignore_index, the own bin of a confidence of 1, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/calibration_error.h"
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

double calibration(CalibrationErrorOptions options, const torch::Tensor& preds,
                   const torch::Tensor& target) {
  CalibrationError metric(std::move(options));
  metric.update(preds, target);
  return metric.compute().item<double>();
}

TEST(CalibrationError, TorchmetricsDocumentedValues) {
  const auto probabilities = torch::tensor({0.25, 0.25, 0.55, 0.75, 0.75});
  const auto outcomes = torch::tensor({0, 0, 1, 1, 1});
  const auto scores = torch::tensor(
      {{0.25, 0.20, 0.55}, {0.55, 0.05, 0.40}, {0.10, 0.30, 0.60}, {0.90, 0.05, 0.05}});
  const auto classes = torch::tensor({0, 1, 2, 0});
  const std::vector<std::pair<std::string, std::pair<double, double>>> expected{
      {"l1", {0.2900, 0.2000}}, {"l2", {0.2918, 0.2082}}, {"max", {0.3167, 0.2333}}};
  for (const auto& [norm, values] : expected) {
    EXPECT_NEAR(calibration({.task = "binary", .n_bins = 2, .norm = norm}, probabilities, outcomes),
                values.first, 1e-4)
        << norm;
    EXPECT_NEAR(calibration({.task = "multiclass", .n_bins = 3, .norm = norm, .num_classes = 3},
                            scores, classes),
                values.second, 1e-4)
        << norm;
  }
  EXPECT_EQ(CalibrationError({.task = "binary"}).higher_is_better(), false);
}

TEST(CalibrationError, MatchesSklearnCalibrationCurve) {
  torch::manual_seed(43);
  const int64_t n = 307, c = 4;
  const auto logits = torch::randn({n}, torch::kDouble) * 2;
  const auto outcomes = (logits + torch::randn({n}, torch::kDouble)).gt(0).to(torch::kLong);
  const auto class_logits = torch::randn({n, c}, torch::kDouble) * 1.5;
  auto classes = (class_logits + torch::randn({n, c}, torch::kDouble)).argmax(1);
  auto ignored = classes.clone();
  ignored.masked_fill_(torch::rand({n}) < 0.25, -1);
  // Python: each sample's confidence and whether it is right; ECE, RMSCE and MCE from
  // calibration_curve's non-empty bins, weighted by their counts (numpy's digitize, as
  // sklearn's binning).
  std::string setup = fmt::format(
      "from sklearn.calibration import calibration_curve\n"
      "def ce(right, conf, bins, norm):\n"
      "    true, pred = calibration_curve(right, conf, n_bins=bins)\n"
      "    ids = np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], conf)\n"
      "    share = np.bincount(ids, minlength=bins)\n"
      "    share = share[share > 0] / len(conf)\n"
      "    gap = np.abs(true - pred)\n"
      "    return {{'l1': (gap * share).sum(), 'l2': np.sqrt((gap ** 2 * share).sum()),\n"
      "            'max': gap.max()}}[norm]\n"
      "pb = 1 / (1 + np.exp(-np.array({})))\nyb = np.array({})\n"
      "s = np.array({})\np = np.exp(s) / np.exp(s).sum(1, keepdims=True)\n"
      "yc = np.array({})\nyi = np.array({})\n"
      "keep = yi != -1\n",
      py(logits), py(outcomes), py(class_logits), py(classes), py(ignored));
  std::vector<Check> checks;
  for (const std::string norm : {"l1", "l2", "max"}) {
    for (const int64_t bins : {7, 15}) {
      const auto tag = fmt::format("{} {} bins", norm, bins);
      CalibrationError binary({.task = "binary", .n_bins = bins, .norm = norm});
      CalibrationError multiclass(
          {.task = "multiclass", .n_bins = bins, .norm = norm, .num_classes = c});
      CalibrationError skipping({.task = "multiclass",
                                 .n_bins = bins,
                                 .norm = norm,
                                 .num_classes = c,
                                 .ignore_index = -1});
      checks.push_back({"binary " + tag, feed(binary, logits, outcomes),
                        fmt::format("ce(yb, pb, {}, '{}')", bins, norm)});
      checks.push_back({"multiclass " + tag, feed(multiclass, class_logits, classes),
                        fmt::format("ce(p.argmax(1) == yc, p.max(1), {}, '{}')", bins, norm)});
      checks.push_back(
          {"ignore_index " + tag, feed(skipping, class_logits, ignored),
           fmt::format("ce((p.argmax(1) == yi)[keep], p.max(1)[keep], {}, '{}')", bins, norm)});
    }
  }
  expect_reference(setup, checks);
}

TEST(CalibrationError, ConfidenceOfOneHasItsOwnBinAndExtraDimensionsAreSamples) {
  // torchmetrics' bucketize puts 1.0 beyond the last bin: 0.75 (wrong) and 1.0 (right) do not
  // share [0.5, 1), so the largest gap is 0.75, not 0.375.
  EXPECT_DOUBLE_EQ(calibration({.task = "binary", .n_bins = 2, .norm = "max"},
                               torch::tensor({0.75, 1.0}, torch::kDouble), torch::tensor({0, 1})),
                   0.75);
  // [N, C, 2] scores against [N, 2] targets: each position a sample.
  const auto scores = torch::tensor({{{0.9, 0.2}, {0.1, 0.8}}}, torch::kDouble);
  const auto target = torch::tensor({{0, 0}});
  EXPECT_NEAR(calibration({.task = "multiclass", .n_bins = 10, .num_classes = 2}, scores, target),
              (0.1 + 0.8) / 2, 1e-12);
}

TEST(CalibrationError, BadOptionsAndInputs) {
  EXPECT_THAT([] { CalibrationError({.task = "multilabel"}); },
              Throws<ConfigError>("CalibrationError(task=\"multilabel\")", "\"multiclass\""));
  EXPECT_THAT([] { CalibrationError({.task = "binary", .n_bins = 0}); },
              Throws<ConfigError>("CalibrationError(n_bins=0)", "at least 1"));
  EXPECT_THAT([] { CalibrationError({.task = "binary", .norm = "l3"}); },
              Throws<ConfigError>("CalibrationError(norm=\"l3\")", "\"max\""));
  EXPECT_THAT([] { CalibrationError({.task = "multiclass"}); },
              Throws<ConfigError>("CalibrationError", "num_classes >= 2"));
  CalibrationError binary({.task = "binary", .ignore_index = -1});
  EXPECT_THAT(
      [&] {
        binary.update(torch::tensor({0, 1}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("CalibrationError", "preds must be scores"));
  EXPECT_THAT([&] { binary.compute(); },
              Throws<MetricError>("CalibrationError", "before any update()"));
  binary.update(torch::tensor({0.2, 0.7}), torch::tensor({-1, -1}));
  EXPECT_THAT([&] { binary.compute(); }, Throws<MetricError>("CalibrationError", "ignored"));
  CalibrationError multiclass({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        multiclass.update(torch::tensor({0.0, 2.0}), torch::tensor({0, 2}));
      },
      Throws<MetricError>("CalibrationError", "pass scores as [N, C]"));
}

}  // namespace
}  // namespace fulgur::metrics
