// AUROC against sklearn's roc_auc_score: binary scores with many ties (a tie between a
// positive and a negative counts one half), logits (the sigmoid keeps the ranking), multiclass
// one-vs-rest with macro, weighted and per-class averages, ignore_index; and the checks.
#include "fulgur/metrics/auroc.h"

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
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::unique_ptr<Metric> make_auroc(CurveOptions o) {
  return std::make_unique<AUROC>(AUROCOptions{.task = o.task,
                                              .num_classes = o.num_classes,
                                              .average = o.average,
                                              .thresholds = o.thresholds,
                                              .ignore_index = o.ignore_index});
}

TEST(AUROC, BinaryWithTiesAndLogitsMatchesSklearn) {
  fulgur::testing::expect_binary_matches_sklearn(make_auroc, "roc_auc_score", {11, 12, 13});
  // All scores equal: one point, the diagonal, 0.5.
  AUROC flat({.task = "binary"});
  expect_reference(
      "",
      {{"all tied",
        feed(flat, torch::full({8}, 0.3, torch::kDouble), torch::tensor({0, 1, 0, 1, 1, 0, 0, 1})),
        "M.roc_auc_score([0, 1, 0, 1, 1, 0, 0, 1], [0.3] * 8)"}});
}

TEST(AUROC, MulticlassOneVsRestMatchesSklearn) {
  fulgur::testing::expect_one_vs_rest_matches_sklearn(make_auroc, "roc_auc_score", {14, 15});
}

TEST(AUROC, MaxFprIsSklearnsStandardizedPartialArea) {
  torch::manual_seed(17);
  const auto scores = torch::rand({300}, torch::kDouble);
  const auto tied = (scores * 10).round() / 10;
  const auto target = torch::randint(0, 2, {300}, torch::kLong);
  std::vector<Check> checks;
  for (const double max_fpr : {0.05, 0.37, 0.5, 1.0}) {
    AUROC plain({.task = "binary", .max_fpr = max_fpr}),
        ties({.task = "binary", .max_fpr = max_fpr});
    checks.push_back({fmt::format("max_fpr={}", max_fpr), feed(plain, scores, target),
                      fmt::format("M.roc_auc_score(y, s, max_fpr={})", max_fpr)});
    // Tied scores: the cut falls inside a diagonal segment of the curve.
    checks.push_back({fmt::format("tied max_fpr={}", max_fpr), feed(ties, tied, target),
                      fmt::format("M.roc_auc_score(y, t, max_fpr={})", max_fpr)});
  }
  expect_reference(fmt::format("s = np.array({})\nt = np.array({})\ny = np.array({})\n", py(scores),
                               py(tied), py(target)),
                   checks);
  // A perfect ranking scores 1. A reversed one has no area below max_fpr = c, which the
  // rescaling maps to 0.5 (1 - c / (2 - c)), not 0: it is a standardized area, not a rank.
  AUROC perfect({.task = "binary", .max_fpr = 0.2}), reversed({.task = "binary", .max_fpr = 0.2});
  const auto ranked = torch::tensor({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, torch::kDouble);
  const auto labels = torch::tensor({0, 0, 0, 1, 1, 1});
  EXPECT_DOUBLE_EQ(perfect.forward(ranked, labels).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(reversed.forward(ranked, 1 - labels).item<double>(), 0.5 * (1 - 0.2 / 1.8));

  EXPECT_THAT([] { AUROC({.task = "binary", .max_fpr = 0.0}); },
              Throws<ConfigError>("AUROC(max_fpr=0)", "(0, 1]"));
  EXPECT_THAT([] { AUROC({.task = "binary", .max_fpr = 1.5}); },
              Throws<ConfigError>("AUROC(max_fpr=1.5)", "(0, 1]"));
  EXPECT_THAT([] { AUROC({.task = "multiclass", .num_classes = 3, .max_fpr = 0.5}); },
              Throws<ConfigError>("AUROC(max_fpr=0.5)", "only for task=\"binary\""));
}

TEST(AUROC, IgnoreIndexAndChecks) {
  torch::manual_seed(16);
  const auto scores = torch::rand({100}, torch::kDouble);
  auto target = torch::randint(0, 2, {100}, torch::kLong);
  target.masked_fill_(torch::rand({100}) < 0.25, -1);
  AUROC a({.task = "binary", .ignore_index = -1});
  expect_reference(
      fmt::format("s = np.array({})\ny = np.array({})\nkeep = y != -1\n", py(scores), py(target)),
      {{"ignore", feed(a, scores, target), "M.roc_auc_score(y[keep], s[keep])"}});

  AUROC b({.task = "binary"});
  EXPECT_THAT(
      [&] {
        b.update(torch::tensor({1, 0}), torch::tensor({1, 0}));
      },
      ThrowsMessage<MetricError>(HasSubstr("AUROC: preds must be scores")));
  EXPECT_THAT(
      [&] {
        b.update(torch::tensor({0.1, std::nan("")}), torch::tensor({1, 0}));
      },
      ThrowsMessage<MetricError>(HasSubstr("NaN")));
  AUROC m({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        m.update(torch::rand({2, 4}), torch::tensor({1, 0}));
      },
      ThrowsMessage<MetricError>(HasSubstr("num_classes=3")));
  EXPECT_THROW(AUROC({.task = "multiclass", .num_classes = 3, .average = "micro"}), ConfigError);
  // One class only: no ROC curve; scored 0 (with a warning) as torchmetrics does.
  b.update(torch::tensor({0.2, 0.7}), torch::tensor({1, 1}));
  EXPECT_EQ(b.compute().item<double>(), 0.0);
}

}  // namespace
}  // namespace fulgur::metrics
