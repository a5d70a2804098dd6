// DiceScore and GeneralizedDiceScore against numpy over the whole data at once (the metrics
// keep running sums per class), in every average, aggregation level, weight type and input
// format, with samples that lack a class or have nothing to score; torchmetrics' documented
// values (its doctests seed torch with 42); the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/dice_score.h"
#include "fulgur/metrics/generalized_dice_score.h"
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

// P and T are class indices [N, ...].
const char* kDice =
    "def sums(P, T, C, background):\n"
    "    p, t = (np.moveaxis(np.eye(C, dtype=int)[X], -1, 1) for X in (P, T))\n"
    "    if not background and C > 1:\n"
    "        p, t = p[:, 1:], t[:, 1:]\n"
    "    ax = tuple(range(2, p.ndim))\n"
    "    ts = t.sum(ax).astype(float)\n"
    "    return (p * t).sum(ax).astype(float), p.sum(ax) + ts, ts\n"
    "def div(a, b, zero=np.nan):\n"
    "    return np.where(b == 0, zero, a / np.where(b == 0, 1, b))\n"
    "def dice(P, T, C, background=True, average='macro', level='samplewise'):\n"
    "    inter, card, ts = sums(P, T, C, background)\n"
    "    num = 2 * inter\n"
    "    if level == 'global':\n"
    "        num, card, ts = (x.sum(0, keepdims=True) for x in (num, card, ts))\n"
    "    if average == 'micro':\n"
    "        s = div(num.sum(1), card.sum(1))\n"
    "    else:\n"
    "        d = div(num, card)\n"
    "        if average == 'macro':\n"
    "            s = np.nanmean(d, 1)\n"
    "        elif average == 'weighted':\n"
    "            w = div(ts, ts.sum(1, keepdims=True))\n"
    "            s = np.where(np.isnan(d).all(1), np.nan, np.nansum(d * w, 1))\n"
    "        else:\n"
    "            s = d\n"
    "    return np.nanmean(s, 0)\n"
    "def gds(P, T, C, background=True, per_class=False, weight='square'):\n"
    "    inter, card, ts = sums(P, T, C, background)\n"
    "    with np.errstate(divide='ignore'):\n"
    "        w = {'square': 1 / ts ** 2, 'simple': 1 / ts, 'linear': np.ones_like(ts)}[weight]\n"
    "    inf = np.isinf(w)\n"
    "    w[inf] = 0\n"
    "    w = np.where(inf, w.max(1, keepdims=True), w)\n"
    "    num, den = 2 * inter * w, card * w\n"
    "    if not per_class:\n"
    "        num, den = num.sum(1), den.sum(1)\n"
    "    return div(num, den, 0).mean(0)\n";

// 13 samples of 5x6 pixels, 4 classes: class 3 is missing from the first 5 targets but
// predicted there at times; sample 6 is background only on both sides.
struct Segmentation {
  at::Tensor preds, target;
};
Segmentation segmentation() {
  torch::manual_seed(15);
  const int64_t n = 13;
  auto target = torch::randint(0, 4, {n, 5, 6}, torch::kLong);
  target.slice(0, 0, 5).clamp_max_(2);
  const auto noise = torch::randint(0, 4, {n, 5, 6}, torch::kLong);
  auto preds = torch::where(torch::rand({n, 5, 6}) < 0.55, target, noise);
  target[6].zero_();
  preds[6].zero_();
  return {preds, target};
}

at::Tensor masks_of(const at::Tensor& t) { return torch::one_hot(t, 4).movedim(-1, 1); }

std::string arrays(const Segmentation& s) {
  return std::string(kDice) + "P = np.array(" + py(s.preds) + ")\nT = np.array(" + py(s.target) +
         ")\n";
}

TEST(DiceScore, MatchesNumpyInEveryAverageAndLevel) {
  const auto s = segmentation();
  std::vector<Check> checks;
  for (const char* level : {"samplewise", "global"}) {
    for (const char* average : {"micro", "macro", "weighted", "none"}) {
      for (const bool background : {true, false}) {
        const std::string args =
            std::string(background ? "True" : "False") + ", '" + average + "', '" + level + "'";
        DiceScore metric({.num_classes = 4,
                          .include_background = background,
                          .average = average,
                          .aggregation_level = level,
                          .input_format = "index"});
        checks.push_back({args, feed(metric, s.preds, s.target), "dice(P, T, 4, " + args + ")"});
      }
    }
  }
  // One-hot masks and mixed inputs give the same.
  DiceScore masks({.num_classes = 4, .include_background = false});
  checks.push_back(
      {"one-hot", feed(masks, masks_of(s.preds), masks_of(s.target)), "dice(P, T, 4, False)"});
  DiceScore mixed({.num_classes = 4, .average = "weighted", .input_format = "mixed"});
  checks.push_back({"mixed", feed(mixed, masks_of(s.preds).to(torch::kDouble), s.target),
                    "dice(P, T, 4, True, 'weighted')"});
  expect_reference(arrays(s), checks, 1e-12);
  DiceScore none({.num_classes = 4, .average = "none", .input_format = "index"});
  EXPECT_FALSE(none.is_scalar());
  EXPECT_EQ(feed(none, s.preds, s.target).sizes(), (std::vector<int64_t>{4}));
}

TEST(DiceScore, TorchmetricsDocumentedValues) {
  torch::manual_seed(42);
  const auto preds = torch::randint(0, 2, {4, 5, 16, 16});
  const auto target = torch::randint(0, 2, {4, 5, 16, 16});
  DiceScore micro({.num_classes = 5, .average = "micro"});
  EXPECT_NEAR(micro.forward(preds, target).item<double>(), 0.4941, 5e-5);
  DiceScore none({.num_classes = 5, .average = "none"});
  const auto per_class = none.forward(preds, target);
  const std::vector<double> documented{0.4860, 0.4999, 0.5014, 0.4885, 0.4915};
  for (size_t c = 0; c < documented.size(); ++c) {
    EXPECT_NEAR(per_class[c].item<double>(), documented[c], 5e-5) << c;
  }
  DiceScore global({.num_classes = 5, .aggregation_level = "global"});
  EXPECT_NEAR(global.forward(preds, target).item<double>(), 0.4942, 5e-5);
  // Perfect masks score 1; masks that never meet 0.
  DiceScore same({.num_classes = 5});
  EXPECT_EQ(same.forward(target, target).item<double>(), 1.0);
  DiceScore apart({.num_classes = 5});
  EXPECT_EQ(apart.forward(1 - target, target).item<double>(), 0.0);
  // Nothing to score anywhere: NaN, as torchmetrics.
  DiceScore empty({.num_classes = 2, .include_background = false, .input_format = "index"});
  EXPECT_TRUE(std::isnan(
      empty.forward(torch::zeros({2, 3, 3}, torch::kLong), torch::zeros({2, 3, 3}, torch::kLong))
          .item<double>()));
}

TEST(GeneralizedDiceScore, MatchesNumpyWithMonaisWeights) {
  const auto s = segmentation();
  std::vector<Check> checks;
  for (const char* weight : {"square", "simple", "linear"}) {
    for (const bool background : {true, false}) {
      for (const bool per_class : {false, true}) {
        const std::string args = std::string(background ? "True" : "False") + ", " +
                                 (per_class ? "True" : "False") + ", '" + weight + "'";
        GeneralizedDiceScore metric({.num_classes = 4,
                                     .include_background = background,
                                     .per_class = per_class,
                                     .weight_type = weight,
                                     .input_format = "index"});
        checks.push_back({args, feed(metric, s.preds, s.target), "gds(P, T, 4, " + args + ")"});
      }
    }
  }
  GeneralizedDiceScore masks({.num_classes = 4});
  checks.push_back({"one-hot", feed(masks, masks_of(s.preds), masks_of(s.target)), "gds(P, T, 4)"});
  expect_reference(arrays(s), checks, 1e-12);
}

TEST(GeneralizedDiceScore, TorchmetricsDocumentedValues) {
  torch::manual_seed(42);
  const auto preds = torch::randint(0, 2, {10, 3, 128, 128});
  const auto target = torch::randint(0, 2, {10, 3, 128, 128});
  GeneralizedDiceScore mean({.num_classes = 3});
  EXPECT_NEAR(mean.forward(preds, target).item<double>(), 0.4992, 5e-5);
  GeneralizedDiceScore per_class({.num_classes = 3, .per_class = true});
  const auto values = per_class.forward(preds, target);
  EXPECT_NEAR(values[0].item<double>(), 0.5001, 5e-5);
  EXPECT_NEAR(values[1].item<double>(), 0.4993, 5e-5);
  EXPECT_NEAR(values[2].item<double>(), 0.4982, 5e-5);
  GeneralizedDiceScore foreground(
      {.num_classes = 3, .include_background = false, .per_class = true});
  EXPECT_EQ(foreground.forward(preds, target).sizes(), (std::vector<int64_t>{2}));
  EXPECT_NEAR(foreground.compute()[1].item<double>(), 0.4982, 5e-5);
}

TEST(DiceScores, BadInputIsAClearError) {
  EXPECT_THAT([] { DiceScore({}); },
              Throws<ConfigError>("DiceScore(num_classes=0)", "positive integer"));
  EXPECT_THAT([] { DiceScore({.num_classes = 3, .average = "samples"}); },
              Throws<ConfigError>("DiceScore(average=\"samples\")", "\"weighted\" or \"none\""));
  EXPECT_THAT([] { DiceScore({.num_classes = 3, .aggregation_level = "batch"}); },
              Throws<ConfigError>("aggregation_level=\"batch\"", "\"samplewise\" or \"global\""));
  EXPECT_THAT([] { GeneralizedDiceScore({.num_classes = 3, .weight_type = "cube"}); },
              Throws<ConfigError>("GeneralizedDiceScore(weight_type=\"cube\")", "\"linear\""));
  EXPECT_THAT([] { GeneralizedDiceScore({.num_classes = 3, .input_format = "labels"}); },
              Throws<ConfigError>("input_format=\"labels\"", "\"mixed\""));
  DiceScore dice({.num_classes = 3, .input_format = "index"});
  EXPECT_THAT(
      [&] {
        dice.update(torch::full({2, 4}, 3, torch::kLong), torch::zeros({2, 4}, torch::kLong));
      },
      Throws<MetricError>("DiceScore: preds holds class indices outside [0, 3)", ""));
  GeneralizedDiceScore gds({.num_classes = 3});
  EXPECT_THAT(
      [&] {
        gds.update(torch::zeros({2, 4, 5, 5}), torch::zeros({2, 4, 5, 5}));
      },
      Throws<MetricError>("GeneralizedDiceScore: preds as one-hot masks or scores must be [N, 3, "
                          "...]",
                          "[2, 4, 5, 5]"));
}

}  // namespace
}  // namespace fulgur::metrics
