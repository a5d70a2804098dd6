// Specificity, NegativePredictiveValue, FBetaScore, JaccardIndex, MatthewsCorrCoef and CohenKappa
// against scikit-learn
// 1.2 on random inputs (fixed seeds) fed in uneven batches: multiclass scores with every
// average, binary probabilities and logits, absent classes, ignore_index, the undefined
// cases; then the option errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/cohen_kappa.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/fbeta_score.h"
#include "fulgur/metrics/jaccard_index.h"
#include "fulgur/metrics/matthews_corr_coef.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/negative_predictive_value.h"
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
  return average == "none" ? "None, labels=range(C)" : "'" + average + "'";
}

// Python helpers: specificity tn / (tn + fp) and, with npv, the negative predictive value
// tn / (tn + fn) from the confusion matrix (sklearn has neither), with torchmetrics' averages;
// classes in neither target nor preds are left out of macro.
const char* kSpecificity =
    "def specificity(y, p, average, C, npv=False):\n"
    "    cm = M.confusion_matrix(y, p, labels=range(C))\n"
    "    tp = np.diag(cm); fp = cm.sum(0) - tp; fn = cm.sum(1) - tp; tn = cm.sum() - tp - fp - fn\n"
    "    div = lambda a, b: np.where(b == 0, 0.0, a / np.maximum(b, 1))\n"
    "    o = fn if npv else fp\n"
    "    if average == 'micro': return div(tn.sum(), tn.sum() + o.sum())\n"
    "    s = div(tn, tn + o)\n"
    "    if average == 'none': return s\n"
    "    w = tp + fn if average == 'weighted' else ((tp + fp + fn) > 0).astype(float)\n"
    "    return (w * s).sum() / w.sum()\n";

TEST(ClassificationScores, MulticlassMatchSklearnForEveryAverage) {
  for (int seed : {11, 12}) {
    torch::manual_seed(seed);
    const int64_t n = 241, c = 4;
    const auto logits = torch::randn({n, c}, torch::kDouble);
    const auto target = torch::randint(0, c, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const std::string average : {"micro", "macro", "weighted", "none"}) {
      const ClassificationOptions o{.task = "multiclass", .num_classes = c, .average = average};
      Specificity specificity(o);
      checks.push_back({"Specificity " + average, feed(specificity, logits, target),
                        fmt::format("specificity(y, p, '{}', C)", average)});
      NegativePredictiveValue npv(o);
      checks.push_back({"NegativePredictiveValue " + average, feed(npv, logits, target),
                        fmt::format("specificity(y, p, '{}', C, npv=True)", average)});
      for (double beta : {0.5, 2.0}) {
        FBetaScore fbeta(beta, o);
        checks.push_back({fmt::format("FBetaScore({}) {}", beta, average),
                          feed(fbeta, logits, target),
                          fmt::format("M.fbeta_score(y, p, beta={}, average={}, zero_division=0)",
                                      beta, sk_average(average))});
      }
      JaccardIndex jaccard({.task = "multiclass", .num_classes = c, .average = average});
      checks.push_back(
          {"JaccardIndex " + average, feed(jaccard, logits, target),
           fmt::format("M.jaccard_score(y, p, average={}, zero_division=0)", sk_average(average))});
    }
    MatthewsCorrCoef mcc({.task = "multiclass", .num_classes = c});
    checks.push_back({"MatthewsCorrCoef", feed(mcc, logits, target), "M.matthews_corrcoef(y, p)"});
    for (const std::string weights : {"none", "linear", "quadratic"}) {
      CohenKappa kappa({.task = "multiclass", .num_classes = c, .weights = weights});
      checks.push_back({"CohenKappa " + weights, feed(kappa, logits, target),
                        fmt::format("M.cohen_kappa_score(y, p, weights={})",
                                    weights == "none" ? "None" : "'" + weights + "'")});
    }
    expect_reference(fmt::format("{}C = {}\nlogits = np.array({})\ny = np.array({})\n"
                                 "p = logits.argmax(1)\n",
                                 kSpecificity, c, py(logits), py(target)),
                     checks);
  }
}

TEST(ClassificationScores, BinaryMatchSklearn) {
  for (int seed : {13, 14}) {
    torch::manual_seed(seed);
    const int64_t n = 197;
    const auto probs = torch::rand({n}, torch::kDouble);
    const auto logits = torch::randn({n}, torch::kDouble) * 3;
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const auto& [input, p] : {std::pair{probs, "pp"}, std::pair{logits, "pl"}}) {
      Specificity specificity({.task = "binary"});
      checks.push_back({fmt::format("Specificity {}", p), feed(specificity, input, target),
                        fmt::format("M.recall_score(1 - y, 1 - {}, zero_division=0)", p)});
      NegativePredictiveValue npv({.task = "binary"});
      checks.push_back({fmt::format("NegativePredictiveValue {}", p), feed(npv, input, target),
                        fmt::format("M.precision_score(1 - y, 1 - {}, zero_division=0)", p)});
      FBetaScore fbeta(2.0, {.task = "binary"});
      checks.push_back({fmt::format("FBetaScore {}", p), feed(fbeta, input, target),
                        fmt::format("M.fbeta_score(y, {}, beta=2.0, zero_division=0)", p)});
      JaccardIndex jaccard({.task = "binary"});
      checks.push_back({fmt::format("JaccardIndex {}", p), feed(jaccard, input, target),
                        fmt::format("M.jaccard_score(y, {}, zero_division=0)", p)});
      MatthewsCorrCoef mcc({.task = "binary"});
      checks.push_back({fmt::format("MatthewsCorrCoef {}", p), feed(mcc, input, target),
                        fmt::format("M.matthews_corrcoef(y, {})", p)});
      CohenKappa kappa({.task = "binary"});
      checks.push_back({fmt::format("CohenKappa {}", p), feed(kappa, input, target),
                        fmt::format("M.cohen_kappa_score(y, {})", p)});
    }
    MatthewsCorrCoef strict({.task = "binary", .threshold = 0.8});
    checks.push_back({"MatthewsCorrCoef threshold 0.8", feed(strict, probs, target),
                      "M.matthews_corrcoef(y, (probs > 0.8).astype(int))"});
    expect_reference(fmt::format("probs = np.array({})\nlogits = np.array({})\ny = np.array({})\n"
                                 "pp = (probs > 0.5).astype(int)\n"
                                 "pl = (1 / (1 + np.exp(-logits)) > 0.5).astype(int)\n",
                                 py(probs), py(logits), py(target)),
                     checks);
  }
}

// Class 3 occurs in target but is never predicted; class 4 never occurs at all (left out of
// macro averages, as sklearn's labels are those seen). ignore_index drops samples.
TEST(ClassificationScores, AbsentClassesAndIgnoreIndexMatchSklearn) {
  torch::manual_seed(15);
  const int64_t n = 160, c = 5;
  const auto preds = torch::randint(0, 3, {n}, torch::kLong);
  auto target = torch::randint(0, 4, {n}, torch::kLong);
  target.masked_fill_(torch::rand({n}) < 0.15, -1);
  std::vector<Check> checks;
  for (const std::string average : {"macro", "weighted"}) {
    const ClassificationOptions o{
        .task = "multiclass", .num_classes = c, .average = average, .ignore_index = -1};
    Specificity specificity(o);
    checks.push_back({"Specificity " + average, feed(specificity, preds, target),
                      fmt::format("specificity(y[k], p[k], '{}', C)", average)});
    NegativePredictiveValue npv(o);
    checks.push_back({"NegativePredictiveValue " + average, feed(npv, preds, target),
                      fmt::format("specificity(y[k], p[k], '{}', C, npv=True)", average)});
    FBetaScore fbeta(3.0, o);
    checks.push_back({"FBetaScore " + average, feed(fbeta, preds, target),
                      fmt::format("M.fbeta_score(y[k], p[k], beta=3.0, average='{}', "
                                  "zero_division=0)",
                                  average)});
    JaccardIndex jaccard(
        {.task = "multiclass", .num_classes = c, .average = average, .ignore_index = -1});
    checks.push_back(
        {"JaccardIndex " + average, feed(jaccard, preds, target),
         fmt::format("M.jaccard_score(y[k], p[k], average='{}', zero_division=0)", average)});
  }
  MatthewsCorrCoef mcc({.task = "multiclass", .num_classes = c, .ignore_index = -1});
  checks.push_back(
      {"MatthewsCorrCoef", feed(mcc, preds, target), "M.matthews_corrcoef(y[k], p[k])"});
  CohenKappa kappa(
      {.task = "multiclass", .num_classes = c, .weights = "quadratic", .ignore_index = -1});
  checks.push_back({"CohenKappa", feed(kappa, preds, target),
                    "M.cohen_kappa_score(y[k], p[k], weights='quadratic')"});
  expect_reference(fmt::format("{}C = {}\np = np.array({})\ny = np.array({})\nk = y != -1\n",
                               kSpecificity, c, py(preds), py(target)),
                   checks);
}

TEST(ClassificationScores, DefaultsAndUndefinedValues) {
  // JaccardIndex averages macro by default (torchmetrics'), the others micro.
  const auto preds = torch::tensor({0, 0, 1, 2, 2, 2}, torch::kLong);
  const auto target = torch::tensor({0, 1, 1, 2, 2, 0}, torch::kLong);
  JaccardIndex jaccard({.task = "multiclass", .num_classes = 3});
  // IoU per class: 1/3, 1/2, 2/3.
  EXPECT_NEAR(jaccard.forward(preds, target).item<double>(), (1.0 / 3 + 0.5 + 2.0 / 3) / 3, 1e-12);
  EXPECT_EQ(jaccard.options().average, "macro");
  // F1Score is FBetaScore with beta 1, named as itself.
  F1Score f1({.task = "multiclass", .num_classes = 3, .average = "macro"});
  FBetaScore fbeta1(1.0, {.task = "multiclass", .num_classes = 3, .average = "macro"});
  EXPECT_DOUBLE_EQ(f1.forward(preds, target).item<double>(),
                   fbeta1.forward(preds, target).item<double>());
  EXPECT_EQ(f1.name(), "F1Score");
  EXPECT_EQ(f1.beta(), 1.0);

  // Perfect and perfectly wrong agreement.
  const auto y = torch::tensor({0, 1, 1, 0, 1}, torch::kLong);
  MatthewsCorrCoef mcc({.task = "binary"});
  EXPECT_DOUBLE_EQ(mcc.forward(y, y).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(mcc.forward(1 - y, y).item<double>(), -1.0);
  // Only one predicted class: sklearn's 0, not NaN.
  MatthewsCorrCoef constant({.task = "binary"});
  EXPECT_EQ(constant.forward(torch::ones({5}, torch::kLong), y).item<double>(), 0.0);
  // One class in both: kappa's chance agreement is total, the value undefined (NaN as sklearn).
  CohenKappa kappa({.task = "binary"});
  EXPECT_TRUE(
      std::isnan(kappa.forward(torch::ones({4}, torch::kLong), torch::ones({4}, torch::kLong))
                     .item<double>()));
  EXPECT_TRUE(mcc.is_scalar());
  EXPECT_TRUE(kappa.is_scalar());
  EXPECT_EQ(kappa.higher_is_better(), true);
}

TEST(ClassificationScores, BadOptionsAndInputsNameTheMetric) {
  EXPECT_THAT([] { FBetaScore(0.0, {.task = "binary"}); },
              Throws<ConfigError>("FBetaScore(beta=0)", "must be a finite number > 0"));
  EXPECT_THAT([] { FBetaScore(-1.0, {.task = "binary"}); },
              Throws<ConfigError>("FBetaScore(beta=-1)", "> 0"));
  EXPECT_THAT([] { CohenKappa({.task = "binary", .weights = "cubic"}); },
              Throws<ConfigError>("CohenKappa(weights=\"cubic\")", "\"quadratic\""));
  EXPECT_THAT([] { MatthewsCorrCoef({.task = "multiclass"}); },
              Throws<ConfigError>("MatthewsCorrCoef", "num_classes"));
  EXPECT_THAT([] { CohenKappa({.task = "binary", .threshold = 1.5}); },
              Throws<ConfigError>("CohenKappa(threshold=1.5)", "[0, 1]"));
  EXPECT_THAT([] { JaccardIndex({.task = "multiclass", .num_classes = 3, .average = "mean"}); },
              Throws<ConfigError>("JaccardIndex(average=\"mean\")", "\"macro\""));
  EXPECT_THAT([] { Specificity({.task = "multilabel", .num_classes = 3}); },
              Throws<ConfigError>("Specificity(task=\"multilabel\")", "num_labels >= 2"));

  MatthewsCorrCoef mcc({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        mcc.update(torch::tensor({0, 1, 3}), torch::tensor({0, 1, 2}));
      },
      Throws<MetricError>("MatthewsCorrCoef", "preds hold labels outside [0, 3)"));
  CohenKappa kappa({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        kappa.update(torch::randn({2, 4}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("CohenKappa", "num_classes=3"));
  EXPECT_THAT([&] { kappa.compute(); }, Throws<MetricError>("CohenKappa", "before any update"));
}

}  // namespace
}  // namespace fulgur::metrics
