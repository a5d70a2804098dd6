// MeanIoU against numpy (each sample's IoU per class, averaged over the samples that have the
// class), for the three input formats, with and without the background class, per class; and
// the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/mean_iou.h"
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
const char* kMeanIoU =
    "def miou(P, T, C, background=True, per_class=False):\n"
    "    first = 0 if background or C == 1 else 1\n"
    "    s, k = np.zeros(C), np.zeros(C)\n"
    "    for p, t in zip(P, T):\n"
    "        for c in range(first, C):\n"
    "            u = ((p == c) | (t == c)).sum()\n"
    "            if u > 0:\n"
    "                s[c] += ((p == c) & (t == c)).sum() / u\n"
    "                k[c] += 1\n"
    "    s, k = s[first:], k[first:]\n"
    "    if per_class:\n"
    "        return np.where(k > 0, s / np.maximum(k, 1), -1.0)\n"
    "    return s.sum() / k.sum()\n";

TEST(MeanIoU, MatchesNumpyInEveryInputFormat) {
  torch::manual_seed(14);
  const int64_t n = 23, c = 5;
  // Images of 6x7 pixels; class 4 only in some samples' targets, never predicted.
  auto target = torch::randint(0, 4, {n, 6, 7}, torch::kLong);
  target.slice(0, 0, 5).select(1, 0).fill_(4);
  const auto noise = torch::randint(0, 4, {n, 6, 7}, torch::kLong);
  const auto preds = torch::where(torch::rand({n, 6, 7}) < 0.6, target.clamp_max(3), noise);
  const auto one_hot = [&](const at::Tensor& t) { return torch::one_hot(t, c).movedim(-1, 1); };
  // Scores whose argmax is preds.
  const auto scores =
      one_hot(preds).to(torch::kDouble) * 2 + torch::rand({n, c, 6, 7}, torch::kDouble);
  std::vector<Check> checks;
  for (const bool background : {true, false}) {
    for (const bool per_class : {false, true}) {
      const std::string args =
          std::string(background ? "True" : "False") + ", " + (per_class ? "True" : "False");
      const std::string what = "background " + args;
      auto make = [&](const std::string& format) {
        return MeanIoU({.num_classes = c,
                        .include_background = background,
                        .per_class = per_class,
                        .input_format = format});
      };
      const std::string python = "miou(P, T, 5, " + args + ")";
      auto index = make("index");
      checks.push_back({what + " index", feed(index, preds, target), python});
      auto masks = make("one-hot");
      checks.push_back({what + " one-hot", feed(masks, one_hot(preds), one_hot(target)), python});
      auto from_scores = make("one-hot");
      checks.push_back({what + " scores", feed(from_scores, scores, one_hot(target)), python});
      auto mixed = make("mixed");
      checks.push_back({what + " mixed", feed(mixed, scores, target), python});
      auto mixed_other_way = make("mixed");
      checks.push_back(
          {what + " mixed, target one-hot", feed(mixed_other_way, preds, one_hot(target)), python});
    }
  }
  expect_reference(
      std::string(kMeanIoU) + "P = np.array(" + py(preds) + ")\nT = np.array(" + py(target) + ")\n",
      checks, 1e-12);
}

TEST(MeanIoU, ShapesAndAbsentClasses) {
  MeanIoU per_class({.num_classes = 3, .per_class = true, .input_format = "index"});
  EXPECT_FALSE(per_class.is_scalar());
  EXPECT_EQ(per_class.higher_is_better(), true);
  // One [H, W] image: class 2 appears nowhere (-1); classes 0 and 1 share 1 of 3 pixels each.
  const auto value =
      per_class.forward(torch::tensor({{0, 0}, {1, 1}}), torch::tensor({{0, 1}, {1, 0}}));
  EXPECT_TRUE(torch::allclose(value, torch::tensor({1.0 / 3, 1.0 / 3, -1.0}, torch::kDouble)))
      << value;
  // A [L] sequence is one sample too.
  MeanIoU sequence({.num_classes = 2, .input_format = "index"});
  EXPECT_DOUBLE_EQ(
      sequence.forward(torch::tensor({0, 1, 1, 1}), torch::tensor({0, 1, 0, 1})).item<double>(),
      (1.0 / 2 + 2.0 / 3) / 2);
}

TEST(MeanIoU, BadInputIsAClearError) {
  EXPECT_THAT([] { MeanIoU({.num_classes = 0}); },
              Throws<ConfigError>("MeanIoU(num_classes=0)", "positive integer"));
  EXPECT_THAT(
      [] { MeanIoU({.num_classes = 3, .input_format = "onehot"}); },
      Throws<ConfigError>("input_format=\"onehot\"", "\"one-hot\", \"index\" or \"mixed\""));
  MeanIoU masks({.num_classes = 3});
  EXPECT_THAT(
      [&] {
        masks.update(torch::zeros({2, 4, 5}), torch::zeros({2, 4, 5}));
      },
      Throws<MetricError>("preds as one-hot masks or scores must be [N, 3, ...]", "[2, 4, 5]"));
  EXPECT_THAT(
      [&] {
        masks.update(torch::zeros({2, 3, 5}), torch::zeros({2, 3, 6}));
      },
      Throws<MetricError>("MeanIoU", "wants the same shape"));
  MeanIoU index({.num_classes = 3, .input_format = "index"});
  EXPECT_THAT(
      [&] {
        index.update(torch::tensor({{0, 3}}), torch::tensor({{0, 1}}));
      },
      Throws<MetricError>("preds holds class indices outside [0, 3)", "MeanIoU"));
  EXPECT_THAT(
      [&] {
        index.update(torch::tensor({{0.0, 1.0}}), torch::tensor({{0, 1}}));
      },
      Throws<MetricError>("preds as class indices must be integers", "Float"));
  MeanIoU mixed({.num_classes = 3, .input_format = "mixed"});
  EXPECT_THAT(
      [&] {
        mixed.update(torch::zeros({2, 3, 5}), torch::zeros({2, 3, 5}, torch::kLong));
      },
      Throws<MetricError>("MeanIoU", "one [N, C, ...] and one [N, ...]"));
  EXPECT_THAT(
      [&] {
        mixed.update(torch::zeros({2, 3, 5}), torch::zeros({2, 4}, torch::kLong));
      },
      Throws<MetricError>("MeanIoU", "are not masks of one shape"));
}

}  // namespace
}  // namespace fulgur::metrics
