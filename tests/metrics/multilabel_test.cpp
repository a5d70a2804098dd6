// The multilabel task (num_labels) against scikit-learn 1.2's multilabel-indicator metrics on
// random inputs (fixed seeds) fed in uneven batches: the StatScores family for every average
// (torchmetrics' per-label Accuracy: 1 - hamming_loss for micro), ConfusionMatrix (sklearn's
// multilabel_confusion_matrix) and MatthewsCorrCoef, AUROC and AveragePrecision exact and
// binned with micro; then ignore_index per element, extra dimensions, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/average_precision.h"
#include "fulgur/metrics/cohen_kappa.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/fbeta_score.h"
#include "fulgur/metrics/jaccard_index.h"
#include "fulgur/metrics/matthews_corr_coef.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/negative_predictive_value.h"
#include "fulgur/metrics/precision.h"
#include "fulgur/metrics/recall.h"
#include "fulgur/metrics/specificity.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

std::string sk_average(const std::string& average) {
  return average == "none" ? "None" : "'" + average + "'";
}

// Python: torchmetrics' multilabel Accuracy, Specificity and NegativePredictiveValue from sklearn's
// per-label matrices (every label counts in macro, unlike multiclass); `fl` rounds scores down to
// thresholds.
constexpr const char* kPerLabel =
    "def per_label(y, p, average, score):\n"
    "    cm = M.multilabel_confusion_matrix(y, p)\n"
    "    tn, fp, fn, tp = cm[:, 0, 0], cm[:, 0, 1], cm[:, 1, 0], cm[:, 1, 1]\n"
    "    if average == 'micro': return score(tp.sum(), fp.sum(), tn.sum(), fn.sum())\n"
    "    s = score(tp, fp, tn, fn)\n"
    "    if average == 'none': return s\n"
    "    w = tp + fn if average == 'weighted' else np.ones_like(s)\n"
    "    return (w * s).sum() / w.sum()\n"
    "div = lambda a, b: np.where(b == 0, 0.0, a / np.maximum(b, 1))\n"
    "accuracy = lambda tp, fp, tn, fn: div(tp + tn, tp + fp + tn + fn)\n"
    "specificity = lambda tp, fp, tn, fn: div(tn, tn + fp)\n"
    "npv = lambda tp, fp, tn, fn: div(tn, tn + fn)\n"
    "def fl(s, thr):\n"
    "    return thr[np.searchsorted(thr, s, side='right') - 1]\n";

TEST(Multilabel, StatScoresMatchSklearnForEveryAverage) {
  for (int seed : {21, 22}) {
    torch::manual_seed(seed);
    const int64_t n = 233, labels = 4;
    auto logits = torch::randn({n, labels}, torch::kDouble);
    auto target = (logits + torch::randn({n, labels}, torch::kDouble)).gt(0).to(torch::kLong);
    // Seed 22: label 3 is neither in target nor predicted; macro still counts it (multiclass
    // would leave such a class out).
    if (seed == 22) {
      target.select(1, 3).zero_();
      logits.select(1, 3).abs_().neg_();
    }
    std::vector<Check> checks;
    for (const std::string average : {"micro", "macro", "weighted", "none"}) {
      const ClassificationOptions o{.task = "multilabel", .num_labels = labels, .average = average};
      const auto sk = [&](const std::string& score, const std::string& extra = "") {
        return fmt::format("M.{}(y, p{}, average={}, zero_division=0)", score, extra,
                           sk_average(average));
      };
      Accuracy accuracy(o);
      Precision precision(o);
      Recall recall(o);
      F1Score f1(o);
      FBetaScore fbeta(2.0, o);
      Specificity specificity(o);
      JaccardIndex jaccard({.task = "multilabel", .num_labels = labels, .average = average});
      EXPECT_EQ(accuracy.is_scalar(), average != "none");
      checks.push_back({"Accuracy " + average, feed(accuracy, logits, target),
                        fmt::format("per_label(y, p, '{}', accuracy)", average)});
      checks.push_back(
          {"Precision " + average, feed(precision, logits, target), sk("precision_score")});
      checks.push_back({"Recall " + average, feed(recall, logits, target), sk("recall_score")});
      checks.push_back({"F1Score " + average, feed(f1, logits, target), sk("f1_score")});
      checks.push_back(
          {"FBetaScore(2) " + average, feed(fbeta, logits, target), sk("fbeta_score", ", beta=2")});
      checks.push_back({"Specificity " + average, feed(specificity, logits, target),
                        fmt::format("per_label(y, p, '{}', specificity)", average)});
      NegativePredictiveValue npv(o);
      checks.push_back({"NegativePredictiveValue " + average, feed(npv, logits, target),
                        fmt::format("per_label(y, p, '{}', npv)", average)});
      checks.push_back(
          {"JaccardIndex " + average, feed(jaccard, logits, target), sk("jaccard_score")});
    }
    // Micro Accuracy is the share of right (sample, label) answers.
    Accuracy micro({.task = "multilabel", .num_labels = labels});
    checks.push_back(
        {"Accuracy micro = 1 - hamming", feed(micro, logits, target), "1 - M.hamming_loss(y, p)"});
    expect_reference(fmt::format("{}y = np.array({})\np = (np.array({}) > 0).astype(int)\n",
                                 kPerLabel, py(target), py(logits)),
                     checks);
  }
}

TEST(Multilabel, ConfusionMatrixAndMatthewsMatchSklearn) {
  torch::manual_seed(23);
  const int64_t n = 157, labels = 3;
  const auto probs = torch::rand({n, labels}, torch::kDouble);
  const auto target =
      (probs + 0.6 * torch::rand({n, labels}, torch::kDouble)).gt(0.8).to(torch::kLong);
  std::vector<Check> checks;
  for (const std::string normalize : {"none", "true", "pred", "all"}) {
    ConfusionMatrix matrix(
        {.task = "multilabel", .threshold = 0.4, .num_labels = labels, .normalize = normalize});
    const auto value = feed(matrix, probs, target);
    EXPECT_EQ(value.sizes(), (std::vector<int64_t>{labels, 2, 2}));
    const std::string normalized = normalize == "true"   ? "cm / cm.sum(2, keepdims=True)"
                                   : normalize == "pred" ? "cm / cm.sum(1, keepdims=True)"
                                   : normalize == "all"  ? "cm / cm.sum((1, 2), keepdims=True)"
                                                         : "cm";
    checks.push_back({"ConfusionMatrix " + normalize, value, normalized});
  }
  MatthewsCorrCoef mcc({.task = "multilabel", .threshold = 0.4, .num_labels = labels});
  checks.push_back(
      {"MatthewsCorrCoef", feed(mcc, probs, target), "M.matthews_corrcoef(y.ravel(), p.ravel())"});
  expect_reference(fmt::format("y = np.array({})\np = (np.array({}) > 0.4).astype(int)\n"
                               "cm = M.multilabel_confusion_matrix(y, p)\n",
                               py(target), py(probs)),
                   checks);
}

TEST(Multilabel, IgnoreIndexLeavesElementsOutAndExtraDimensionsAreSamples) {
  torch::manual_seed(24);
  // [N, L, 3]: each sample has three positions per label; integer preds are labels.
  const int64_t n = 61, labels = 3;
  const auto preds = torch::randint(0, 2, {n, labels, 3}, torch::kLong);
  auto target = torch::randint(0, 2, {n, labels, 3}, torch::kLong);
  target.masked_fill_(torch::rand({n, labels, 3}).lt(0.2), -1);
  std::vector<Check> checks;
  for (const std::string average : {"micro", "macro"}) {
    const ClassificationOptions o{
        .task = "multilabel", .num_labels = labels, .average = average, .ignore_index = -1};
    Precision precision(o);
    Recall recall(o);
    checks.push_back({"Precision " + average, feed(precision, preds, target),
                      fmt::format("kept('precision_score', '{}')", average)});
    checks.push_back({"Recall " + average, feed(recall, preds, target),
                      fmt::format("kept('recall_score', '{}')", average)});
  }
  ConfusionMatrix matrix({.task = "multilabel", .num_labels = labels, .ignore_index = -1});
  checks.push_back({"ConfusionMatrix", feed(matrix, preds, target),
                    "[M.confusion_matrix(y[m[:, l], l], p[m[:, l], l], labels=[0, 1]) "
                    "for l in range(L)]"});
  expect_reference(
      fmt::format("L = {}\n"
                  "rows = lambda a: np.moveaxis(np.array(a), 1, -1).reshape(-1, L)\n"
                  "y = rows({})\np = rows({})\nm = y != -1\n"
                  "def kept(score, average):\n"
                  "    if average == 'micro': return getattr(M, score)(y[m], p[m])\n"
                  "    return np.mean([getattr(M, score)(y[m[:, l], l], p[m[:, l], l], "
                  "zero_division=0) for l in range(L)])\n",
                  labels, py(target), py(preds)),
      checks);
}

TEST(Multilabel, CurvesMatchSklearnExactAndBinned) {
  torch::manual_seed(25);
  const int64_t n = 211, labels = 4;
  const auto logits = torch::randn({n, labels}, torch::kDouble) * 2;
  const auto target =
      (logits + torch::randn({n, labels}, torch::kDouble) * 2).gt(0).to(torch::kLong);
  // Rounded probabilities: ties within and across labels.
  const auto tied = (logits.sigmoid() * 10).round() / 10;
  std::vector<Check> checks;
  for (const std::string average : {"micro", "macro", "weighted", "none"}) {
    const auto args = [&](const std::string& scores) {
      return fmt::format("y, {}, average={}", scores, sk_average(average));
    };
    for (const std::string score : {"roc_auc_score", "average_precision_score"}) {
      const CurveOptions o{.task = "multilabel", .num_labels = labels, .average = average};
      auto binned_options = o;
      binned_options.thresholds = int64_t{11};
      const auto make = [&](const CurveOptions& options) -> std::unique_ptr<Metric> {
        if (score == "roc_auc_score") {
          return std::make_unique<AUROC>(AUROCOptions{.task = options.task,
                                                      .num_labels = options.num_labels,
                                                      .average = options.average,
                                                      .thresholds = options.thresholds});
        }
        return std::make_unique<AveragePrecision>(options);
      };
      auto from_logits = make(o), from_tied = make(o), binned = make(binned_options);
      EXPECT_EQ(from_logits->is_scalar(), average != "none");
      checks.push_back({score + " logits " + average, feed(*from_logits, logits, target),
                        fmt::format("M.{}({})", score, args("s"))});
      checks.push_back({score + " tied " + average, feed(*from_tied, tied, target),
                        fmt::format("M.{}({})", score, args("t"))});
      checks.push_back({score + " binned " + average, feed(*binned, logits, target),
                        fmt::format("M.{}({})", score, args("fl(1 / (1 + np.exp(-s)), thr)"))});
    }
  }
  expect_reference(fmt::format("{}y = np.array({})\ns = np.array({})\nt = np.array({})\n"
                               "thr = np.linspace(0, 1, 11)\n",
                               kPerLabel, py(target), py(logits), py(tied)),
                   checks);
}

TEST(Multilabel, CurvesLeaveIgnoredElementsOutOfTheirLabelOnly) {
  torch::manual_seed(26);
  const int64_t n = 150, labels = 3;
  const auto probs = torch::rand({n, labels}, torch::kDouble);
  auto target = (probs + torch::rand({n, labels}, torch::kDouble)).gt(1).to(torch::kLong);
  target.masked_fill_(torch::rand({n, labels}).lt(0.25), -1);
  std::vector<Check> checks;
  for (const bool binned : {false, true}) {
    for (const std::string average : {"macro", "micro"}) {
      AUROCOptions o{
          .task = "multilabel", .num_labels = labels, .average = average, .ignore_index = -1};
      if (binned) o.thresholds = int64_t{11};
      AUROC auroc(o);
      const std::string scores = binned ? "fl(s, thr)" : "s";
      checks.push_back({fmt::format("AUROC {} {}", binned ? "binned" : "exact", average),
                        feed(auroc, probs, target),
                        average == "micro"
                            ? fmt::format("M.roc_auc_score(y[m], {}[m])", scores)
                            : fmt::format("np.mean([M.roc_auc_score(y[m[:, l], l], {}[m[:, l], l]) "
                                          "for l in range(L)])",
                                          scores)});
    }
  }
  // Label 1 without positives: AveragePrecision NaN for it, left out of macro.
  auto no_positives = target.clone();
  no_positives.select(1, 1).clamp_max_(0);
  const CurveOptions o{.task = "multilabel", .num_labels = labels, .ignore_index = -1};
  AveragePrecision macro(o);
  AveragePrecision per_label(
      {.task = "multilabel", .num_labels = labels, .average = "none", .ignore_index = -1});
  EXPECT_TRUE(std::isnan(feed(per_label, probs, no_positives)[1].item<double>()));
  checks.push_back({"AveragePrecision macro without label 1", feed(macro, probs, no_positives),
                    "np.mean([M.average_precision_score(y[m[:, l], l], s[m[:, l], l]) "
                    "for l in (0, 2)])"});
  expect_reference(fmt::format("{}L = {}\ny = np.array({})\ns = np.array({})\nm = y != -1\n"
                               "thr = np.linspace(0, 1, 11)\n",
                               kPerLabel, labels, py(target), py(probs)),
                   checks);

  // Every element ignored: nothing to score.
  AUROC ignored({.task = "multilabel", .num_labels = 2, .ignore_index = -1});
  ignored.update(torch::rand({2, 2}), torch::full({2, 2}, -1, torch::kLong));
  EXPECT_THAT([&] { ignored.compute(); }, Throws<MetricError>("AUROC", "ignored"));
}

TEST(Multilabel, BadOptionsAndInputsAreClearErrors) {
  EXPECT_THAT([] { Precision({.task = "multilabel"}); },
              Throws<ConfigError>("Precision(task=\"multilabel\")", "num_labels >= 2, got none"));
  EXPECT_THAT([] { ConfusionMatrix({.task = "multilabel", .num_labels = 1}); },
              Throws<ConfigError>("ConfusionMatrix(task=\"multilabel\")", "got 1"));
  EXPECT_THAT([] { Accuracy({.task = "multilabel", .num_labels = 3, .top_k = 2}); },
              Throws<ConfigError>("Accuracy(top_k=2)", "multilabel"));
  EXPECT_THAT([] { Recall({.task = "multilabels", .num_labels = 3}); },
              Throws<ConfigError>("Recall(task=\"multilabels\")", "\"multilabel\""));
  EXPECT_THAT([] { CohenKappa({.task = "multilabel"}); },
              Throws<ConfigError>("CohenKappa(task=\"multilabel\")", "no multilabel task"));
  EXPECT_THAT([] { AUROC({.task = "multiclass", .num_classes = 3, .average = "micro"}); },
              Throws<ConfigError>("AUROC(average=\"micro\")", "\"micro\" is for multilabel"));
  EXPECT_THAT(
      [] { AveragePrecision({.task = "multilabel", .num_labels = 3, .average = "samples"}); },
      Throws<ConfigError>("AveragePrecision(average=\"samples\")", "\"micro\", \"macro\""));
  EXPECT_THAT([] { AUROC({.task = "multilabel", .num_labels = 3, .max_fpr = 0.5}); },
              Throws<ConfigError>("AUROC(max_fpr=0.5)", "binary"));

  F1Score f1({.task = "multilabel", .num_labels = 4});
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({5, 3}), torch::zeros({5, 3}, torch::kLong));
      },
      Throws<MetricError>("F1Score", "num_labels = 4, got shape [5, 3]"));
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({5, 4}), torch::zeros({5, 4, 2}, torch::kLong));
      },
      Throws<MetricError>("F1Score", "must have the same shape"));
  EXPECT_THAT([&] { f1.update(torch::rand({5}), torch::zeros({5}, torch::kLong)); },
              Throws<MetricError>("F1Score", "[N, L, ...]"));
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({2, 4}), torch::full({2, 4}, 2, torch::kLong));
      },
      Throws<MetricError>("F1Score", "binary labels 0 or 1"));
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({2, 4}), torch::rand({2, 4}));
      },
      Throws<MetricError>("F1Score", "integer"));
  AUROC auroc({.task = "multilabel", .num_labels = 2});
  EXPECT_THAT(
      [&] {
        auroc.update(torch::full({1, 2}, NAN), torch::tensor({{0, 1}}));
      },
      Throws<MetricError>("AUROC", "NaN"));
  EXPECT_EQ(f1.update_count(), 0);
}

}  // namespace
}  // namespace fulgur::metrics
