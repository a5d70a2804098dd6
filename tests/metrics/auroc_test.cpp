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
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::py;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

at::Tensor feed(Metric& metric, const at::Tensor& preds, const at::Tensor& target) {
  const int64_t n = preds.size(0);
  metric.update(preds.slice(0, 0, n / 4), target.slice(0, 0, n / 4));
  metric.update(preds.slice(0, n / 4, n), target.slice(0, n / 4, n));
  return metric.compute();
}

TEST(AUROC, BinaryWithTiesAndLogitsMatchesSklearn) {
  std::vector<Check> checks;
  std::string setup;
  for (int seed : {11, 12, 13}) {
    torch::manual_seed(seed);
    const int64_t n = 301;
    // Scores rounded to one decimal: many ties, some across classes.
    const auto tied = (torch::rand({n}, torch::kDouble) * 10).round() / 10;
    const auto logits = torch::randn({n}, torch::kDouble) * 2;
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    AUROC a({.task = "binary"}), b({.task = "binary"});
    setup += fmt::format("t{0} = np.array({1})\nl{0} = np.array({2})\ny{0} = np.array({3})\n", seed,
                         py(tied), py(logits), py(target));
    checks.push_back({fmt::format("seed {} tied", seed), feed(a, tied, target),
                      fmt::format("M.roc_auc_score(y{0}, t{0})", seed)});
    checks.push_back({fmt::format("seed {} logits", seed), feed(b, logits, target),
                      fmt::format("M.roc_auc_score(y{0}, l{0})", seed)});
  }
  // All scores equal: one point, the diagonal, 0.5.
  AUROC flat({.task = "binary"});
  checks.push_back(
      {"all tied",
       feed(flat, torch::full({8}, 0.3, torch::kDouble), torch::tensor({0, 1, 0, 1, 1, 0, 0, 1})),
       "M.roc_auc_score([0, 1, 0, 1, 1, 0, 0, 1], [0.3] * 8)"});
  expect_reference(setup, checks);
}

TEST(AUROC, MulticlassOneVsRestMatchesSklearn) {
  for (int seed : {14, 15}) {
    torch::manual_seed(seed);
    const int64_t n = 240, c = 4;
    const auto logits = torch::randn({n, c}, torch::kDouble);
    const auto probs = logits.softmax(1);
    // Rounded probabilities give ties within a class column.
    const auto tied = (probs * 20).round() / 20;
    const auto target = torch::randint(0, c, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const std::string average : {"macro", "weighted", "none"}) {
      AUROC from_probs({.task = "multiclass", .num_classes = c, .average = average});
      AUROC from_logits({.task = "multiclass", .num_classes = c, .average = average});
      EXPECT_EQ(from_probs.is_scalar(), average != "none");
      const std::string reference =
          average == "none"
              ? "[M.roc_auc_score(y == k, probs[:, k]) for k in range(C)]"
              : fmt::format("M.roc_auc_score(y, probs, multi_class='ovr', average='{}')", average);
      checks.push_back({"probs " + average, feed(from_probs, probs, target), reference});
      // Logits go through a softmax first, as torchmetrics does.
      checks.push_back({"logits " + average, feed(from_logits, logits, target), reference});
    }
    AUROC ties({.task = "multiclass", .num_classes = c});
    checks.push_back({"tied macro", feed(ties, tied, target),
                      "np.mean([M.roc_auc_score(y == k, tied[:, k]) for k in range(C)])"});
    expect_reference(fmt::format("C = {}\nprobs = np.array({})\ntied = np.array({})\n"
                                 "y = np.array({})\n",
                                 c, py(probs), py(tied), py(target)),
                     checks);
  }
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
