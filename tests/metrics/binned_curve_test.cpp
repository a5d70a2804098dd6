// AUROC and AveragePrecision with `thresholds` (torchmetrics' binned curves): torchmetrics'
// documented examples; sklearn's scores of the scores rounded down to the thresholds (binary,
// logits, ties on the thresholds, multiclass one-vs-rest for each average, ignore_index); the
// trapezoids of the points at thresholds that do not span [0, 1]; constant memory; the checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/average_precision.h"
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

// Python: `fl(s, thr)` rounds each score down to the highest threshold it clears.
constexpr const char* kFloorToThresholds =
    "def fl(s, thr):\n"
    "    return thr[np.searchsorted(thr, s, side='right') - 1]\n";

// The thresholds a count gives, as the metric makes them.
at::Tensor grid(int64_t count) { return torch::linspace(0, 1, count, torch::kDouble); }

TEST(BinnedCurves, MatchTorchmetricsDocumentedExamples) {
  // torchmetrics' binary_roc and binary_average_precision examples: with thresholds=5 the
  // ROC points are fpr [0, .5, .5, .5, 1], tpr [0, 0, 1, 1, 1]; AP 0.6667 binned, 0.5833 exact.
  const auto preds = torch::tensor({0.0, 0.5, 0.7, 0.8}, torch::kDouble);
  const auto target = torch::tensor({0, 1, 1, 0});
  AUROC auroc({.task = "binary", .thresholds = 5});
  AveragePrecision binned({.task = "binary", .thresholds = 5}), exact({.task = "binary"});
  auroc.update(preds, target);
  binned.update(preds, target);
  exact.update(preds, target);
  EXPECT_DOUBLE_EQ(auroc.compute().item<double>(), 0.5);
  EXPECT_NEAR(binned.compute().item<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(exact.compute().item<double>(), 7.0 / 12, 1e-12);

  // Two thresholds, 0 and 1: every score in one bin, so the curve is the diagonal and the AP
  // the share of positives, where the exact scores see the ranking (0.75 and 5/6).
  const auto ranked = torch::tensor({0.1, 0.2, 0.3, 0.4}, torch::kDouble);
  const auto labels = torch::tensor({0, 1, 0, 1});
  AUROC coarse_auroc({.task = "binary", .thresholds = 2}), fine_auroc({.task = "binary"});
  AveragePrecision coarse_ap({.task = "binary", .thresholds = 2});
  coarse_auroc.update(ranked, labels);
  fine_auroc.update(ranked, labels);
  coarse_ap.update(ranked, labels);
  EXPECT_DOUBLE_EQ(coarse_auroc.compute().item<double>(), 0.5);
  EXPECT_DOUBLE_EQ(fine_auroc.compute().item<double>(), 0.75);
  EXPECT_DOUBLE_EQ(coarse_ap.compute().item<double>(), 0.5);
}

TEST(BinnedCurves, BinaryEqualsSklearnOnScoresRoundedDownToTheThresholds) {
  std::vector<Check> checks;
  std::string setup = kFloorToThresholds;
  for (int seed : {21, 22}) {
    torch::manual_seed(seed);
    const int64_t n = 400;
    const auto scores = torch::rand({n}, torch::kDouble);
    // Logits: the sigmoid comes first, as in the exact curve.
    const auto logits = torch::randn({n}, torch::kDouble) * 2;
    // Scores on the thresholds themselves: a score equal to a threshold clears it.
    const auto on_grid = grid(11).index({torch::randint(0, 10, {n})});
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    setup += fmt::format(
        "s{0} = np.array({1})\nl{0} = 1 / (1 + np.exp(-np.array({2})))\n"
        "g{0} = np.array({3})\ny{0} = np.array({4})\n",
        seed, py(scores), py(logits), py(on_grid), py(target));
    for (const int64_t count : {5, 11, 100}) {
      setup += fmt::format("thr{0} = np.array({1})\n", count, py(grid(count)));
      const auto what = [&](const std::string& data) {
        return fmt::format("seed {} {} thresholds={}", seed, data, count);
      };
      const auto ref = [&](const std::string& score, char data) {
        return fmt::format("M.{}(y{}, fl({}{}, thr{}))", score, seed, data, seed, count);
      };
      for (const auto& [data, preds] :
           std::vector<std::pair<char, at::Tensor>>{{'s', scores}, {'l', logits}, {'g', on_grid}}) {
        AUROC auroc({.task = "binary", .thresholds = count});
        AveragePrecision ap({.task = "binary", .thresholds = count});
        checks.push_back({"AUROC " + what(std::string(1, data)), feed(auroc, preds, target),
                          ref("roc_auc_score", data)});
        checks.push_back({"AP " + what(std::string(1, data)), feed(ap, preds, target),
                          ref("average_precision_score", data)});
      }
      // The partial area cuts the binned curve as it cuts the exact one.
      AUROC partial({.task = "binary", .thresholds = count, .max_fpr = 0.3});
      checks.push_back(
          {"AUROC max_fpr " + what("s"), feed(partial, scores, target),
           fmt::format("M.roc_auc_score(y{0}, fl(s{0}, thr{1}), max_fpr=0.3)", seed, count)});
    }
    // Thresholds of one's own, from 0: the same rounding down.
    const std::vector<double> own{0.0, 0.1, 0.35, 0.5, 0.9};
    AUROC auroc({.task = "binary", .thresholds = own});
    AveragePrecision ap({.task = "binary", .thresholds = own});
    setup += fmt::format("own = np.array({})\n", py(torch::tensor(own, torch::kDouble)));
    checks.push_back({fmt::format("AUROC seed {} own thresholds", seed),
                      feed(auroc, scores * 0.85, target),
                      fmt::format("M.roc_auc_score(y{0}, fl(s{0} * 0.85, own))", seed)});
    checks.push_back({fmt::format("AP seed {} own thresholds", seed), feed(ap, scores, target),
                      fmt::format("M.average_precision_score(y{0}, fl(s{0}, own))", seed)});
  }
  expect_reference(setup, checks);
}

TEST(BinnedCurves, MulticlassOneVsRestEqualsSklearnOnRoundedScores) {
  torch::manual_seed(23);
  const int64_t n = 300, c = 4, count = 20;
  const auto logits = torch::randn({n, c}, torch::kDouble);
  const auto target = torch::randint(0, c, {n}, torch::kLong);
  std::vector<Check> checks;
  for (const std::string average : {"macro", "weighted", "none"}) {
    AUROC auroc({.task = "multiclass", .num_classes = c, .average = average, .thresholds = count});
    AveragePrecision ap(
        {.task = "multiclass", .num_classes = c, .average = average, .thresholds = count});
    EXPECT_EQ(auroc.is_scalar(), average != "none");
    const auto args = fmt::format("np.eye(C)[y], fl(probs, thr), average={}",
                                  average == "none" ? "None" : "'" + average + "'");
    // Logits in: the softmax comes first.
    checks.push_back({"AUROC " + average, feed(auroc, logits, target),
                      fmt::format("M.roc_auc_score({})", args)});
    checks.push_back({"AP " + average, feed(ap, logits.softmax(1), target),
                      fmt::format("M.average_precision_score({})", args)});
  }
  expect_reference(
      fmt::format("{}C = {}\nthr = np.array({})\nprobs = np.array({})\n"
                  "y = np.array({})\n",
                  kFloorToThresholds, c, py(grid(count)), py(logits.softmax(1)), py(target)),
      checks);
}

TEST(BinnedCurves, ThresholdsThatDoNotSpanTheScoresGiveOnlyTheirOwnPoints) {
  // torchmetrics adds no (0, 0) or (1, 1) to a binned ROC curve: the area is that of the
  // trapezoids between the thresholds' points alone.
  torch::manual_seed(24);
  const auto scores = torch::rand({200}, torch::kDouble);
  const auto target = torch::randint(0, 2, {200}, torch::kLong);
  const std::vector<double> own{0.2, 0.45, 0.6, 0.75};
  AUROC auroc({.task = "binary", .thresholds = own});
  expect_reference(fmt::format("s = np.array({})\ny = np.array({})\nthr = np.array({})[::-1]\n"
                               "tpr = [(s[y == 1] >= t).mean() for t in thr]\n"
                               "fpr = [(s[y == 0] >= t).mean() for t in thr]\n",
                               py(scores), py(target), py(torch::tensor(own, torch::kDouble))),
                   {{"trapezoids", feed(auroc, scores, target), "np.trapz(tpr, fpr)"}});
}

TEST(BinnedCurves, IgnoreIndexAndConstantMemory) {
  torch::manual_seed(25);
  const auto scores = torch::rand({500}, torch::kDouble);
  auto target = torch::randint(0, 2, {500}, torch::kLong);
  target.masked_fill_(torch::rand({500}) < 0.2, -1);
  AUROC auroc({.task = "binary", .thresholds = 50, .ignore_index = -1});
  for (int64_t a = 0; a < 500; a += 50) {
    auroc.update(scores.slice(0, a, a + 50), target.slice(0, a, a + 50));
  }
  // Two [1, 51] count tables whatever the number of samples, and no cat state.
  const auto state = auroc.state_dict().toGenericDict();
  EXPECT_EQ(state.size(), 3u);
  EXPECT_EQ(state.at("positives").toTensor().sizes(), (at::IntArrayRef{1, 51}));
  EXPECT_EQ(state.at("negatives").toTensor().sizes(), (at::IntArrayRef{1, 51}));
  EXPECT_EQ(
      (state.at("positives").toTensor() + state.at("negatives").toTensor()).sum().item<double>(),
      target.ne(-1).sum().item<double>());
  expect_reference(fmt::format("{}s = np.array({})\ny = np.array({})\nthr = np.array({})\n"
                               "keep = y != -1\n",
                               kFloorToThresholds, py(scores), py(target), py(grid(50))),
                   {{"ignore", auroc.compute(), "M.roc_auc_score(y[keep], fl(s[keep], thr))"}});

  // Exact states do not load into a binned metric.
  AUROC exact({.task = "binary"});
  exact.update(scores.slice(0, 0, 10), target.slice(0, 0, 10).clamp_min(0));
  EXPECT_THROW(auroc.load_state_dict(exact.state_dict()), CheckpointError);

  AveragePrecision ignored({.task = "binary", .thresholds = 10, .ignore_index = -1});
  ignored.update(torch::tensor({0.3, 0.6}, torch::kDouble), torch::tensor({-1, -1}));
  EXPECT_THAT([&] { ignored.compute(); },
              Throws<MetricError>("AveragePrecision", "every sample seen so far was ignored"));
}

TEST(BinnedCurves, BadThresholdsAreConfigErrors) {
  EXPECT_THAT([] { AUROC({.task = "binary", .thresholds = 1}); },
              Throws<ConfigError>("AUROC(thresholds=1)", "at least 2"));
  EXPECT_THAT([] { AveragePrecision({.task = "binary", .thresholds = std::vector<double>{}}); },
              Throws<ConfigError>("AveragePrecision(thresholds=[])", "at least one"));
  EXPECT_THAT(
      [] {
        AUROC({.task = "binary", .thresholds = std::vector<double>{0.2, 1.5}});
      },
      Throws<ConfigError>("AUROC", "thresholds must lie in [0, 1], got 1.5"));
  EXPECT_THAT(
      [] {
        AUROC({.task = "binary", .thresholds = std::vector<double>{0.5, 0.2}});
      },
      Throws<ConfigError>("AUROC", "thresholds must be increasing, got 0.2 after 0.5"));
  EXPECT_THAT(
      [] {
        AUROC({.task = "binary", .thresholds = std::vector<double>{0.1, std::nan("")}});
      },
      Throws<ConfigError>("AUROC", "thresholds must lie in [0, 1], got nan"));
}

}  // namespace
}  // namespace fulgur::metrics
