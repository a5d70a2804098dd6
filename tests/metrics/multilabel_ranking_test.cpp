// MultilabelCoverageError, MultilabelRankingAveragePrecision and MultilabelRankingLoss against
// sklearn's coverage_error, label_ranking_average_precision_score and label_ranking_loss on tied
// scores fed in uneven batches (with samples that have no true label or only true ones), their
// edge values, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/multilabel_coverage_error.h"
#include "fulgur/metrics/multilabel_ranking_average_precision.h"
#include "fulgur/metrics/multilabel_ranking_loss.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

TEST(MultilabelRanking, MatchesSklearnOnTiedScores) {
  torch::manual_seed(41);
  const int64_t n = 97, labels = 6;
  // One decimal: many tied scores within a sample.
  const auto scores = (torch::randn({n, labels}, torch::kDouble) * 10).round() / 10;
  auto target = (scores + torch::randn({n, labels}, torch::kDouble)).gt(0.3).to(torch::kLong);
  target[3].fill_(0);   // no true label
  target[50].fill_(1);  // only true labels
  ASSERT_GT(target.sum(1).eq(0).sum().item<int64_t>(), 0);
  std::vector<Check> checks;
  for (const bool logits : {false, true}) {
    // Probabilities rank as the logits do.
    const auto preds = logits ? scores : scores.sigmoid();
    const std::string tag = logits ? " (logits)" : "";
    MultilabelCoverageError coverage({.num_labels = labels});
    MultilabelRankingAveragePrecision lrap({.num_labels = labels});
    MultilabelRankingLoss loss({.num_labels = labels});
    checks.push_back({"coverage" + tag, feed(coverage, preds, target), "M.coverage_error(y, s)"});
    checks.push_back(
        {"lrap" + tag, feed(lrap, preds, target), "M.label_ranking_average_precision_score(y, s)"});
    checks.push_back({"loss" + tag, feed(loss, preds, target), "M.label_ranking_loss(y, s)"});
  }
  expect_reference(fmt::format("y = np.array({})\ns = np.array({})\n", py(target), py(scores)),
                   checks, 1e-12);
}

TEST(MultilabelRanking, EdgeValuesAndDirections) {
  const auto preds = torch::tensor({{0.9, 0.5, 0.1}, {0.2, 0.2, 0.2}}, torch::kDouble);
  MultilabelCoverageError coverage({.num_labels = 3});
  MultilabelRankingAveragePrecision lrap({.num_labels = 3});
  MultilabelRankingLoss loss({.num_labels = 3});
  // The true label ranked first: coverage 1, precision 1, no pair wrong.
  const auto first = torch::tensor({{1, 0, 0}});
  EXPECT_DOUBLE_EQ(coverage.forward(preds.slice(0, 0, 1), first).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(lrap.forward(preds.slice(0, 0, 1), first).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(loss.forward(preds.slice(0, 0, 1), first).item<double>(), 0.0);
  // Ranked last: all 3 to cover it, precision 1/3, both pairs wrong.
  const auto last = torch::tensor({{0, 0, 1}});
  EXPECT_DOUBLE_EQ(coverage.forward(preds.slice(0, 0, 1), last).item<double>(), 3.0);
  EXPECT_DOUBLE_EQ(lrap.forward(preds.slice(0, 0, 1), last).item<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(loss.forward(preds.slice(0, 0, 1), last).item<double>(), 1.0);
  // Tied with the false labels: every pair counts as wrong.
  EXPECT_DOUBLE_EQ(loss.forward(preds.slice(0, 1, 2), first).item<double>(), 1.0);
  EXPECT_EQ(coverage.higher_is_better(), false);
  EXPECT_EQ(lrap.higher_is_better(), true);
  EXPECT_EQ(loss.higher_is_better(), false);
}

TEST(MultilabelRanking, BadOptionsAndInputs) {
  EXPECT_THAT([] { MultilabelRankingLoss({.num_labels = 1}); },
              Throws<ConfigError>("MultilabelRankingLoss(num_labels=1)", "num_labels >= 2"));
  EXPECT_THAT([] { MultilabelCoverageError({}); },
              Throws<ConfigError>("MultilabelCoverageError(num_labels=0)", "num_labels >= 2"));
  MultilabelRankingAveragePrecision lrap({.num_labels = 3});
  EXPECT_THAT(
      [&] {
        lrap.update(torch::rand({4, 2}), torch::ones({4, 2}));
      },
      Throws<MetricError>("MultilabelRankingAveragePrecision",
                          "preds and target must both be [N, 3] (num_labels=3), got [4, 2]"));
  EXPECT_THAT(
      [&] {
        lrap.update(torch::rand({4, 3}), torch::full({4, 3}, 2));
      },
      Throws<MetricError>("MultilabelRankingAveragePrecision", "target must hold only 0 and 1"));
  EXPECT_THAT(
      [&] {
        lrap.update(torch::ones({4, 3}, torch::kLong), torch::ones({4, 3}));
      },
      Throws<MetricError>("MultilabelRankingAveragePrecision", "floating"));
  EXPECT_EQ(lrap.update_count(), 0);
}

}  // namespace
}  // namespace fulgur::metrics
