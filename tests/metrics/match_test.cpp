// HammingDistance and ExactMatch against sklearn: hamming_loss, 1 - recall per class, the
// per-label share of wrong answers, accuracy_score of label indicators (subset accuracy), and
// numpy's all-positions-right for multiclass inputs with extra dimensions; ignore_index; the
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/exact_match.h"
#include "fulgur/metrics/hamming_distance.h"
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

TEST(HammingDistance, MatchesSklearnForEachTaskAndAverage) {
  torch::manual_seed(41);
  const int64_t n = 211, c = 4;
  const auto scores = torch::randn({n}, torch::kDouble);
  const auto binary = (scores + torch::randn({n}, torch::kDouble)).gt(0).to(torch::kLong);
  auto logits = torch::randn({n, c}, torch::kDouble);
  auto classes = torch::randint(0, c, {n}, torch::kLong);
  // Class 3 occurs neither in target nor in preds: macro keeps only the classes that occur, as
  // sklearn's default labels.
  classes.masked_fill_(classes.eq(3), 2);
  logits.select(1, 3).fill_(-10);
  const auto label_logits = torch::randn({n, c}, torch::kDouble);
  const auto labels = (label_logits + torch::randn({n, c}, torch::kDouble)).gt(0).to(torch::kLong);
  std::vector<Check> checks;
  HammingDistance b({.task = "binary"});
  EXPECT_EQ(b.higher_is_better(), false);
  checks.push_back({"binary", feed(b, scores, binary), "M.hamming_loss(yb, pb)"});
  for (const std::string average : {"micro", "macro", "weighted", "none"}) {
    HammingDistance multiclass({.task = "multiclass", .num_classes = c, .average = average});
    HammingDistance multilabel({.task = "multilabel", .num_labels = c, .average = average});
    const auto recall =
        average == "none"
            ? std::string(
                  "1 - M.recall_score(yc, pc, average=None, labels=range(4), "
                  "zero_division=0)")
            : fmt::format("1 - M.recall_score(yc, pc, average='{}', zero_division=0)", average);
    checks.push_back({"multiclass " + average, feed(multiclass, logits, classes),
                      average == "micro" ? std::string("M.hamming_loss(yc, pc)") : recall});
    const std::string per_label = "(yl != pl).mean(0)";
    const std::string weights = "(yl == 1).sum(0)";
    checks.push_back({"multilabel " + average, feed(multilabel, label_logits, labels),
                      average == "micro"  ? std::string("M.hamming_loss(yl, pl)")
                      : average == "none" ? per_label
                      : average == "macro"
                          ? per_label + ".mean()"
                          : fmt::format("({0} * {1}).sum() / {1}.sum()", per_label, weights)});
  }
  expect_reference(
      fmt::format("yb = np.array({})\npb = (np.array({}) > 0).astype(int)\n"
                  "yc = np.array({})\npc = np.array({}).argmax(1)\n"
                  "yl = np.array({})\npl = (np.array({}) > 0).astype(int)\n",
                  py(binary), py(scores), py(classes), py(logits), py(labels), py(label_logits)),
      checks);
}

TEST(ExactMatch, MatchesSubsetAccuracyAndAllPositionsRight) {
  torch::manual_seed(42);
  const int64_t n = 180, c = 3;
  // Multilabel: logits (a sigmoid, then > 0.3) and extra positions, each a sample of its own.
  const auto logits = torch::randn({n, c}, torch::kDouble);
  const auto labels =
      (logits + 0.7 * torch::randn({n, c}, torch::kDouble)).gt(-0.5).to(torch::kLong);
  const auto deep_logits = torch::randn({n, c, 2}, torch::kDouble);
  const auto deep_labels =
      (deep_logits + 0.5 * torch::randn({n, c, 2}, torch::kDouble)).gt(0).to(torch::kLong);
  // Multiclass: scores [N, C, 3] against targets [N, 3]; ignored positions count as right.
  const auto scores = torch::randn({n, c, 3}, torch::kDouble);
  auto targets = (scores + 0.8 * torch::randn({n, c, 3}, torch::kDouble)).argmax(1);
  targets.masked_fill_(torch::rand({n, 3}) < 0.2, -1);
  ExactMatch multilabel({.task = "multilabel", .threshold = 0.3, .num_labels = c});
  ExactMatch deep({.task = "multilabel", .num_labels = c});
  ExactMatch multiclass({.task = "multiclass", .num_classes = c, .ignore_index = -1});
  ExactMatch flat({.task = "multiclass", .num_classes = c});
  Accuracy accuracy({.task = "multiclass", .num_classes = c});
  const auto flat_scores = scores.select(2, 0), flat_target = targets.select(1, 0).clamp_min(0);
  expect_reference(
      fmt::format("yl = np.array({})\npl = (1 / (1 + np.exp(-np.array({}))) > 0.3).astype(int)\n"
                  "yd = np.array({})\npd = (np.array({}) > 0).astype(int)\n"
                  "yc = np.array({})\npc = np.array({}).argmax(1)\n",
                  py(labels), py(logits), py(deep_labels), py(deep_logits), py(targets),
                  py(scores)),
      {{"multilabel", feed(multilabel, logits, labels), "M.accuracy_score(yl, pl)"},
       {"multilabel [N, L, 2]", feed(deep, deep_logits, deep_labels),
        "M.accuracy_score(np.moveaxis(yd, 1, -1).reshape(-1, 3), "
        "np.moveaxis(pd, 1, -1).reshape(-1, 3))"},
       {"multiclass [N, 3] positions", feed(multiclass, scores, targets),
        "np.all((pc == yc) | (yc == -1), axis=1).mean()"},
       {"multiclass [N] = micro Accuracy", feed(flat, flat_scores, flat_target),
        "float(" + py(feed(accuracy, flat_scores, flat_target)) + ")"}});
  const auto state = multiclass.state_dict().toGenericDict();
  EXPECT_EQ(state.at("total").toTensor().item<int64_t>(), n);
}

TEST(ExactMatch, BadOptionsAndInputs) {
  EXPECT_THAT([] { ExactMatch({.task = "binary"}); },
              Throws<ConfigError>("ExactMatch(task=\"binary\")", "\"multilabel\""));
  EXPECT_THAT([] { ExactMatch({.task = "multilabel"}); },
              Throws<ConfigError>("ExactMatch", "num_labels >= 2"));
  EXPECT_THAT([] { ExactMatch({.task = "multilabel", .threshold = 1.5, .num_labels = 2}); },
              Throws<ConfigError>("ExactMatch(threshold=1.5)", "[0, 1]"));
  ExactMatch m({.task = "multilabel", .num_labels = 3});
  EXPECT_THAT(
      [&] {
        m.update(torch::rand({4, 2}), torch::zeros({4, 2}, torch::kLong));
      },
      Throws<MetricError>("ExactMatch", "L = num_labels = 3"));
  EXPECT_THAT([&] { m.compute(); }, Throws<MetricError>("ExactMatch", "before any update()"));
  ExactMatch k({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        k.update(torch::tensor({0, 5}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("ExactMatch", "outside [0, 3)"));
  k.update(torch::zeros({0}, torch::kLong), torch::zeros({0}, torch::kLong));
  k.update(torch::tensor({{0, 1}, {2, 2}}), torch::tensor({{0, 1}, {2, 1}}));
  EXPECT_DOUBLE_EQ(k.compute().item<double>(), 0.5);
}

}  // namespace
}  // namespace fulgur::metrics
