// AveragePrecision against sklearn's average_precision_score: binary scores with many ties
// (a tied group is one point of the curve), logits, multiclass one-vs-rest with macro,
// weighted and per-class averages, a class that never occurs (NaN, left out of the averages),
// ignore_index; and the checks.
#include "fulgur/metrics/average_precision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "metrics/curve_reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

AveragePrecision binary_ap(std::optional<int64_t> ignore_index = std::nullopt) {
  return AveragePrecision({.task = "binary", .ignore_index = ignore_index});
}

std::unique_ptr<Metric> make_average_precision(CurveOptions options) {
  return std::make_unique<AveragePrecision>(std::move(options));
}

TEST(AveragePrecision, BinaryWithTiesAndLogitsMatchesSklearn) {
  fulgur::testing::expect_binary_matches_sklearn(make_average_precision, "average_precision_score",
                                                 {21, 22, 23});
  // All scores equal: one point, precision = the share of positives. No negative: precision 1
  // at every point.
  auto flat = binary_ap(), all_positive = binary_ap();
  expect_reference(
      "",
      {{"all tied",
        feed(flat, torch::full({8}, 0.3, torch::kDouble), torch::tensor({0, 1, 0, 0, 1, 0, 0, 1})),
        "M.average_precision_score([0, 1, 0, 0, 1, 0, 0, 1], [0.3] * 8)"},
       {"no negative", feed(all_positive, torch::tensor({0.2, 0.9, 0.4}), torch::tensor({1, 1, 1})),
        "M.average_precision_score([1, 1, 1], [0.2, 0.9, 0.4])"}});
}

TEST(AveragePrecision, MulticlassOneVsRestMatchesSklearn) {
  fulgur::testing::expect_one_vs_rest_matches_sklearn(make_average_precision,
                                                      "average_precision_score", {24, 25});
}

TEST(AveragePrecision, ClassWithoutPositivesIsNaNAndLeftOutOfTheAverages) {
  torch::manual_seed(26);
  const int64_t n = 90, c = 4;
  const auto probs = torch::rand({n, c}, torch::kDouble).softmax(1);
  const auto target = torch::randint(0, c - 1, {n}, torch::kLong);  // class 3 never occurs
  AveragePrecision none({.task = "multiclass", .num_classes = c, .average = "none"});
  const auto per_class = feed(none, probs, target);
  EXPECT_TRUE(std::isnan(per_class[3].item<double>()));
  AveragePrecision macro({.task = "multiclass", .num_classes = c});
  AveragePrecision weighted({.task = "multiclass", .num_classes = c, .average = "weighted"});
  expect_reference(fmt::format("p = np.array({})\ny = np.array({})\n", py(probs), py(target)),
                   {{"present classes", per_class.slice(0, 0, 3),
                     "[M.average_precision_score(y == k, p[:, k]) for k in range(3)]"},
                    {"macro of the present classes", feed(macro, probs, target),
                     "np.mean([M.average_precision_score(y == k, p[:, k]) for k in range(3)])"},
                    // sklearn weighs the absent class by its support, 0: the same value.
                    {"weighted", feed(weighted, probs, target),
                     "M.average_precision_score(np.eye(4)[y], p, average='weighted')"}});

  auto binary = binary_ap();
  EXPECT_TRUE(
      std::isnan(feed(binary, torch::rand({5}, torch::kDouble), torch::zeros({5}, torch::kLong))
                     .item<double>()));
}

TEST(AveragePrecision, IgnoreIndexAndChecks) {
  torch::manual_seed(27);
  const auto scores = torch::rand({100}, torch::kDouble);
  auto target = torch::randint(0, 2, {100}, torch::kLong);
  target.masked_fill_(torch::rand({100}) < 0.25, -1);
  auto a = binary_ap(-1);
  expect_reference(
      fmt::format("s = np.array({})\ny = np.array({})\nkeep = y != -1\n", py(scores), py(target)),
      {{"ignore", feed(a, scores, target), "M.average_precision_score(y[keep], s[keep])"}});

  auto b = binary_ap();
  EXPECT_THAT(
      [&] {
        b.update(torch::tensor({1, 0}), torch::tensor({1, 0}));
      },
      Throws<MetricError>("AveragePrecision", "preds must be scores"));
  EXPECT_THAT(
      [&] {
        b.update(torch::tensor({0.1, 0.2}), torch::tensor({1, 2}));
      },
      Throws<MetricError>("AveragePrecision", "target"));
  AveragePrecision m({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        m.update(torch::rand({2, 4}), torch::tensor({1, 0}));
      },
      Throws<MetricError>("AveragePrecision", "num_classes=3"));
  EXPECT_THAT(
      [] { AveragePrecision({.task = "multiclass", .num_classes = 3, .average = "micro"}); },
      Throws<ConfigError>("AveragePrecision(average=\"micro\")", "\"weighted\""));
  EXPECT_THAT([] { AveragePrecision({.task = "multilabel"}); },
              Throws<ConfigError>("AveragePrecision", "multilabel"));
  // Only ignored samples: nothing to score.
  auto ignored = binary_ap(-1);
  ignored.update(torch::tensor({0.3}), torch::tensor({-1}));
  EXPECT_THAT([&] { ignored.compute(); }, Throws<MetricError>("AveragePrecision", "ignored"));
}

}  // namespace
}  // namespace fulgur::metrics
