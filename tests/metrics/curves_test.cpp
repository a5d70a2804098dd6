// ROC and PrecisionRecallCurve: torchmetrics' documented examples; the exact curves against
// sklearn's roc_curve(drop_intermediate=False) and precision_recall_curve (binary with ties and
// logits, each class of a multiclass task); the binned curves against counts numpy takes at
// each threshold (binary, multiclass, multilabel with ignored elements); classes without
// positives; the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/precision_recall_curve.h"
#include "fulgur/metrics/roc.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

// Python: the binned curves from the counts of positives and negatives whose score is at least
// each threshold (`y` 0/1, or -1 for an ignored element).
constexpr const char* kBinnedCurves =
    "def counts(s, y, thr):\n"
    "    s, y = s[y != -1], y[y != -1]\n"
    "    c = s[:, None] >= thr[None, :]\n"
    "    tp = (c & (y[:, None] == 1)).sum(0).astype(float)\n"
    "    fp = (c & (y[:, None] == 0)).sum(0).astype(float)\n"
    "    return tp, fp, float((y == 1).sum()), float((y == 0).sum())\n"
    "def roc(s, y, thr):\n"
    "    tp, fp, P, N = counts(s, y, thr)\n"
    "    return np.stack([(fp / N if N else 0 * fp)[::-1], (tp / P if P else 0 * tp)[::-1]])\n"
    "def prc(s, y, thr):\n"
    "    tp, fp, P, N = counts(s, y, thr)\n"
    "    precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0)\n"
    "    return np.stack([np.append(precision, 1), np.append(tp / P, 0)])\n";

std::vector<double> doubles(const at::Tensor& t) { return fulgur::testing::values(t); }

TEST(Curves, MatchTorchmetricsDocumentedExamples) {
  // torchmetrics' binary_roc and binary_precision_recall_curve examples.
  const auto preds = torch::tensor({0.0, 0.5, 0.7, 0.8}, torch::kDouble);
  const auto target = torch::tensor({0, 1, 1, 0});
  ROC exact_roc({.task = "binary"}), binned_roc({.task = "binary", .thresholds = 5});
  PrecisionRecallCurve exact_pr({.task = "binary"}), binned_pr({.task = "binary", .thresholds = 5});
  for (Metric* m : std::vector<Metric*>{&exact_roc, &binned_roc, &exact_pr, &binned_pr}) {
    m->update(preds, target);
    EXPECT_FALSE(m->is_scalar());
  }
  using ::testing::DoubleNear;
  using ::testing::ElementsAre;
  const auto near = [](double v) { return DoubleNear(v, 1e-4); };
  const auto roc = exact_roc.curves().at(0);
  EXPECT_THAT(doubles(roc.fpr), ElementsAre(0, 0.5, 0.5, 0.5, 1));
  EXPECT_THAT(doubles(roc.tpr), ElementsAre(0, 0, 0.5, 1, 1));
  EXPECT_THAT(doubles(roc.thresholds), ElementsAre(near(1), near(0.8), near(0.7), near(0.5), 0));
  EXPECT_THAT(doubles(exact_roc.compute()), ElementsAre(0, 0.5, 0.5, 0.5, 1, 0, 0, 0.5, 1, 1));
  const auto binned = binned_roc.curves().at(0);
  EXPECT_THAT(doubles(binned.fpr), ElementsAre(0, 0.5, 0.5, 0.5, 1));
  EXPECT_THAT(doubles(binned.tpr), ElementsAre(0, 0, 1, 1, 1));
  EXPECT_THAT(doubles(binned.thresholds), ElementsAre(1, 0.75, 0.5, 0.25, 0));

  const auto pr = exact_pr.curves().at(0);
  EXPECT_THAT(doubles(pr.precision), ElementsAre(0.5, near(0.6667), 0.5, 0, 1));
  EXPECT_THAT(doubles(pr.recall), ElementsAre(1, 1, 0.5, 0, 0));
  EXPECT_THAT(doubles(pr.thresholds), ElementsAre(0, near(0.5), near(0.7), near(0.8)));
  EXPECT_EQ(exact_pr.compute().sizes(), (std::vector<int64_t>{2, 5}));
  const auto binned_points = binned_pr.curves().at(0);
  EXPECT_THAT(doubles(binned_points.precision),
              ElementsAre(0.5, near(0.6667), near(0.6667), 0, 0, 1));
  EXPECT_THAT(doubles(binned_points.recall), ElementsAre(1, 1, 1, 0, 0, 0));
  EXPECT_THAT(doubles(binned_points.thresholds), ElementsAre(0, 0.25, 0.5, 0.75, 1));

  // torchmetrics' multiclass_roc example: class 4 has no positive, so its tpr is 0.
  const auto probs = torch::tensor({{0.75, 0.05, 0.05, 0.05, 0.05},
                                    {0.05, 0.75, 0.05, 0.05, 0.05},
                                    {0.05, 0.05, 0.75, 0.05, 0.05},
                                    {0.05, 0.05, 0.05, 0.75, 0.05}},
                                   torch::kDouble);
  const auto classes = torch::tensor({0, 1, 3, 2});
  ROC per_class({.task = "multiclass", .num_classes = 5});
  per_class.update(probs, classes);
  ::testing::internal::CaptureStderr();
  const auto curves = per_class.curves();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("ROC: class 4 has no positive sample; its true positive rate "
                                   "is 0 at every threshold"));
  ASSERT_EQ(curves.size(), 5u);
  EXPECT_THAT(doubles(curves[2].fpr), ElementsAre(0, near(1.0 / 3), 1));
  EXPECT_THAT(doubles(curves[2].tpr), ElementsAre(0, 0, 1));
  EXPECT_THAT(doubles(curves[4].fpr), ElementsAre(0, 1));
  EXPECT_THAT(doubles(curves[4].tpr), ElementsAre(0, 0));
  EXPECT_THAT(doubles(curves[4].thresholds), ElementsAre(1, near(0.05)));
  ROC grid({.task = "multiclass", .num_classes = 5, .thresholds = 5});
  grid.update(probs, classes);
  const auto stacked = grid.compute();
  ASSERT_EQ(stacked.sizes(), (std::vector<int64_t>{5, 2, 5}));
  EXPECT_THAT(doubles(stacked[0]), ElementsAre(0, 0, 0, 0, 1, 0, 1, 1, 1, 1));
  EXPECT_THAT(doubles(stacked[3][0]),
              ElementsAre(0, near(1.0 / 3), near(1.0 / 3), near(1.0 / 3), 1));
  EXPECT_THAT(doubles(stacked[3][1]), ElementsAre(0, 0, 0, 0, 1));
  EXPECT_THAT(doubles(stacked[4][1]), ElementsAre(0, 0, 0, 0, 0));
}

TEST(Curves, ExactCurvesMatchSklearn) {
  std::vector<Check> checks;
  std::string setup;
  for (int seed : {3, 14}) {
    torch::manual_seed(seed);
    const int64_t n = 157;
    const auto tied = (torch::rand({n}, torch::kDouble) * 10).round() / 10;
    const auto logits = torch::randn({n}, torch::kDouble) * 2;
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    setup += fmt::format("t{0} = np.array({1})\nl{0} = np.array({2})\ny{0} = np.array({3})\n", seed,
                         py(tied), py(logits), py(target));
    for (const auto& [name, scores] : {std::pair{"t", tied}, std::pair{"l", logits}}) {
      const auto data = fmt::format("y{}, {}{}", seed, name, seed);
      ROC roc({.task = "binary"});
      PrecisionRecallCurve pr({.task = "binary"});
      const auto rates = feed(roc, scores, target);
      const auto points = feed(pr, scores, target);
      // sklearn's thresholds are the raw scores; the metrics' the probabilities (a sigmoid
      // of logits), the same ranking.
      const auto probability = [&](const std::string& expression) {
        return std::string(name) == "l" ? "1 / (1 + np.exp(-" + expression + "))" : expression;
      };
      checks.push_back(
          {fmt::format("seed {} {} roc", seed, name), rates,
           fmt::format("np.stack(M.roc_curve({}, drop_intermediate=False)[:2])", data)});
      checks.push_back(
          {fmt::format("seed {} {} roc thresholds", seed, name),
           roc.curves()[0].thresholds.slice(0, 1),
           probability(fmt::format("M.roc_curve({}, drop_intermediate=False)[2][1:]", data))});
      checks.push_back({fmt::format("seed {} {} pr", seed, name), points,
                        fmt::format("np.stack(M.precision_recall_curve({})[:2])", data)});
      checks.push_back({fmt::format("seed {} {} pr thresholds", seed, name),
                        pr.curves()[0].thresholds,
                        probability(fmt::format("M.precision_recall_curve({})[2]", data))});
    }
  }
  // Each class one-vs-rest, from probabilities with ties.
  torch::manual_seed(5);
  const int64_t n = 120, c = 3;
  const auto probs = (torch::randn({n, c}, torch::kDouble).softmax(1) * 20).round() / 20;
  const auto target = torch::randint(0, c, {n}, torch::kLong);
  setup += fmt::format("p = np.array({})\ny = np.array({})\n", py(probs), py(target));
  ROC roc({.task = "multiclass", .num_classes = c});
  PrecisionRecallCurve pr({.task = "multiclass", .num_classes = c});
  roc.update(probs, target);
  pr.update(probs, target);
  const auto rocs = roc.curves();
  const auto prs = pr.curves();
  for (int64_t k = 0; k < c; ++k) {
    const auto data = fmt::format("y == {0}, p[:, {0}]", k);
    checks.push_back(
        {fmt::format("class {} roc", k),
         torch::stack({rocs[k].fpr, rocs[k].tpr, rocs[k].thresholds}).slice(1, 1),
         fmt::format("np.stack(M.roc_curve({}, drop_intermediate=False))[:, 1:]", data)});
    checks.push_back({fmt::format("class {} pr", k),
                      torch::cat({prs[k].precision, prs[k].recall, prs[k].thresholds}),
                      fmt::format("np.concatenate(M.precision_recall_curve({}))", data)});
  }
  expect_reference(setup, checks);
}

TEST(Curves, BinnedCurvesMatchCountsAtEachThreshold) {
  torch::manual_seed(8);
  const int64_t n = 203, c = 4;
  const auto scores = torch::rand({n}, torch::kDouble);
  const auto target = torch::randint(0, 2, {n}, torch::kLong);
  const auto logits = torch::randn({n, c}, torch::kDouble);
  const auto classes = torch::randint(0, c, {n}, torch::kLong);
  const auto label_scores = torch::rand({n, c}, torch::kDouble);
  auto labels = torch::randint(0, 2, {n, c}, torch::kLong);
  labels.masked_fill_(torch::rand({n, c}) < 0.2, -1);
  const std::vector<double> own{0.0, 0.1, 0.35, 0.5, 0.9};
  std::string setup =
      std::string(kBinnedCurves) +
      fmt::format("s = np.array({})\ny = np.array({})\n", py(scores), py(target)) +
      fmt::format("q = np.array({})\nk = np.array({})\n", py(logits.softmax(1)), py(classes)) +
      fmt::format("u = np.array({})\nv = np.array({})\n", py(label_scores), py(labels)) +
      "g = np.linspace(0, 1, 11)\no = np.array([0.0, 0.1, 0.35, 0.5, 0.9])\n";
  ROC roc({.task = "binary", .thresholds = 11}), roc_own({.task = "binary", .thresholds = own});
  PrecisionRecallCurve pr({.task = "binary", .thresholds = 11});
  ROC multiclass({.task = "multiclass", .num_classes = c, .thresholds = 11});
  PrecisionRecallCurve multiclass_pr({.task = "multiclass", .num_classes = c, .thresholds = 11});
  const ROCOptions label_options{
      .task = "multilabel", .num_labels = c, .thresholds = 11, .ignore_index = -1};
  ROC multilabel(label_options);
  PrecisionRecallCurve multilabel_pr(label_options);
  const auto per_class = [&](const std::string& curve, const std::string& s, const std::string& y) {
    return fmt::format("np.stack([{}({}[:, j], {}, g) for j in range({})])", curve, s, y, c);
  };
  expect_reference(
      setup,
      {{"binary roc", feed(roc, scores, target), "roc(s, y, g)"},
       {"binary roc, own thresholds", feed(roc_own, scores, target), "roc(s, y, o)"},
       {"binary pr", feed(pr, scores, target), "prc(s, y, g)"},
       {"multiclass roc", feed(multiclass, logits, classes),
        per_class("roc", "q", "(k == j).astype(int)")},
       {"multiclass pr", feed(multiclass_pr, logits, classes),
        per_class("prc", "q", "(k == j).astype(int)")},
       {"multilabel roc", feed(multilabel, label_scores, labels), per_class("roc", "u", "v[:, j]")},
       {"multilabel pr", feed(multilabel_pr, label_scores, labels),
        per_class("prc", "u", "v[:, j]")},
       {"roc thresholds", roc_own.curves()[0].thresholds, "o[::-1]"},
       {"pr thresholds", multilabel_pr.curves()[2].thresholds, "g"}});
  // The binned states stay [classes, thresholds + 1] whatever the samples.
  const auto state = multilabel.state_dict().toGenericDict();
  EXPECT_EQ(state.at("positives").toTensor().sizes(), (std::vector<int64_t>{c, 12}));
}

TEST(Curves, ClassesWithoutPositivesAndErrors) {
  PrecisionRecallCurve pr({.task = "binary"});
  pr.update(torch::tensor({0.2, 0.6, 0.9}, torch::kDouble), torch::tensor({0, 0, 0}));
  ::testing::internal::CaptureStderr();
  const auto points = pr.curves().at(0);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("PrecisionRecallCurve: the binary target has no positive "
                                   "sample; its recall is NaN"));
  EXPECT_THAT(doubles(points.precision), ::testing::ElementsAre(0, 0, 0, 1));
  const auto recall = doubles(points.recall);
  ASSERT_EQ(recall.size(), 4u);
  EXPECT_TRUE(std::isnan(recall[0]) && std::isnan(recall[2]));
  EXPECT_EQ(recall[3], 0);
  ROC roc({.task = "binary", .thresholds = 3});
  roc.update(torch::tensor({0.2, 0.6}, torch::kDouble), torch::tensor({1, 1}));
  ::testing::internal::CaptureStderr();
  EXPECT_THAT(doubles(roc.compute()), ::testing::ElementsAre(0, 0, 0, 0, 0.5, 1));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("has no negative sample; its false positive rate is 0"));

  ROC empty({.task = "binary"});
  EXPECT_THAT([&] { empty.curves(); }, Throws<MetricError>("ROC", "before any update()"));
  EXPECT_THAT([&] { empty.compute(); }, Throws<MetricError>("ROC", "before any update()"));
  ROC per_class({.task = "multiclass", .num_classes = 3});
  per_class.update(torch::rand({4, 3}, torch::kDouble), torch::tensor({0, 1, 2, 1}));
  EXPECT_THAT([&] { per_class.compute(); },
              Throws<MetricError>("differ in length", "read them with ROC::curves()"));
  PrecisionRecallCurve per_label({.task = "multilabel", .num_labels = 2});
  per_label.update(torch::rand({4, 2}, torch::kDouble),
                   torch::tensor({{0, 1}, {1, 1}, {0, 0}, {1, 0}}));
  EXPECT_THAT([&] { per_label.compute(); },
              Throws<MetricError>("each label differ in length", "PrecisionRecallCurve::curves()"));
  EXPECT_EQ(per_label.curves().size(), 2u);
  EXPECT_THAT([] { ROC({.task = "multiclass"}); },
              Throws<ConfigError>("ROC(task=\"multiclass\")", "num_classes >= 2"));
  EXPECT_THAT([] { PrecisionRecallCurve({.task = "binary", .thresholds = 1}); },
              Throws<ConfigError>("PrecisionRecallCurve(thresholds=1)", "at least 2"));
  EXPECT_THAT(
      [] {
        ROC({.task = "binary", .thresholds = std::vector<double>{0.5, 0.2}});
      },
      Throws<ConfigError>("ROC", "increasing"));
  ROC ignored({.task = "binary", .ignore_index = -1});
  ignored.update(torch::tensor({0.3}, torch::kDouble), torch::tensor({-1}));
  EXPECT_THAT([&] { ignored.curves(); }, Throws<MetricError>("ROC", "ignored"));
  EXPECT_THAT(
      [&] {
        roc.update(torch::tensor({1, 0}), torch::tensor({1, 0}));
      },
      Throws<MetricError>("ROC", "preds must be scores"));
}

}  // namespace
}  // namespace fulgur::metrics
