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
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::unique_ptr<Metric> make_auroc(CurveOptions options) {
  return std::make_unique<AUROC>(std::move(options));
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
