// Accuracy, Precision, Recall, F1Score and ConfusionMatrix against scikit-learn 1.2 on random
// inputs (fixed seeds) fed in uneven batches: binary probabilities and logits, multiclass
// scores with every average and top_k, ignore_index, and the edge cases where a class is never
// predicted or never occurs (zero_division=0). Then the input checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/precision.h"
#include "fulgur/metrics/recall.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

// Python's reference expression for `kind` with sklearn's `average`.
std::string sk(const std::string& kind, const std::string& average, const std::string& y,
               const std::string& p) {
  const std::string avg = average == "none" ? "None" : "'" + average + "'";
  const std::string labels = average == "none" ? ", labels=range(C)" : "";
  if (kind == "Accuracy") {
    // torchmetrics' multiclass accuracy: micro is the plain accuracy, the others average the
    // per-class recall.
    if (average == "micro") return fmt::format("M.accuracy_score({}, {})", y, p);
    return fmt::format("M.recall_score({}, {}, average={}, zero_division=0{})", y, p, avg, labels);
  }
  const std::string fn = kind == "Precision" ? "precision_score"
                         : kind == "Recall"  ? "recall_score"
                                             : "f1_score";
  return fmt::format("M.{}({}, {}, average={}, zero_division=0{})", fn, y, p, avg, labels);
}

std::unique_ptr<Metric> make(const std::string& kind, ClassificationOptions o) {
  if (kind == "Accuracy") return std::make_unique<Accuracy>(o);
  if (kind == "Precision") return std::make_unique<Precision>(o);
  if (kind == "Recall") return std::make_unique<Recall>(o);
  return std::make_unique<F1Score>(o);
}

const std::vector<std::string> kKinds{"Accuracy", "Precision", "Recall", "F1Score"};

TEST(Classification, MulticlassMatchesSklearnForEveryAverage) {
  for (int seed : {1, 2, 3}) {
    torch::manual_seed(seed);
    const int64_t n = 257, c = 4;
    const auto logits = torch::randn({n, c}, torch::kDouble);
    const auto target = torch::randint(0, c, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const auto& kind : kKinds) {
      for (const std::string average : {"micro", "macro", "weighted", "none"}) {
        auto metric = make(kind, {.task = "multiclass", .num_classes = c, .average = average});
        EXPECT_EQ(metric->is_scalar(), average != "none");
        checks.push_back({fmt::format("seed {} {} {}", seed, kind, average),
                          feed(*metric, logits, target), sk(kind, average, "y", "p")});
      }
    }
    // Labels instead of scores give the same counts.
    Accuracy labels({.task = "multiclass", .num_classes = c});
    checks.push_back({"labels", feed(labels, logits.argmax(1), target), "M.accuracy_score(y, p)"});
    for (const std::string average : {"micro", "macro"}) {
      Accuracy top2({.task = "multiclass", .num_classes = c, .average = average, .top_k = 2});
      checks.push_back({"top_k=2 " + average, feed(top2, logits, target),
                        average == "micro"
                            ? "M.top_k_accuracy_score(y, logits, k=2, labels=range(C))"
                            : "np.mean([hit[y == k].mean() for k in range(C) if (y == k).any()])"});
    }
    for (const std::string normalize : {"none", "true", "pred", "all"}) {
      ConfusionMatrix cm({.task = "multiclass", .num_classes = c, .normalize = normalize});
      checks.push_back({"confmat " + normalize, feed(cm, logits, target),
                        fmt::format("M.confusion_matrix(y, p, labels=range(C), normalize={})",
                                    normalize == "none" ? "None" : "'" + normalize + "'")});
    }
    expect_reference(fmt::format("C = {}\nlogits = np.array({})\ny = np.array({})\n"
                                 "p = logits.argmax(1)\n"
                                 "hit = (np.argsort(-logits, 1)[:, :2] == y[:, None]).any(1)\n",
                                 c, py(logits), py(target)),
                     checks);
  }
}

TEST(Classification, BinaryProbabilitiesAndLogitsMatchSklearn) {
  for (int seed : {4, 5}) {
    torch::manual_seed(seed);
    const int64_t n = 203;
    const auto probs = torch::rand({n}, torch::kDouble);
    const auto logits = torch::randn({n}, torch::kDouble) * 3;
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const auto& kind : kKinds) {
      for (const auto& [input, p] : {std::pair{probs, "pp"}, std::pair{logits, "pl"}}) {
        auto metric = make(kind, {.task = "binary"});
        const std::string fn = kind == "Accuracy"    ? "accuracy_score"
                               : kind == "Precision" ? "precision_score"
                               : kind == "Recall"    ? "recall_score"
                                                     : "f1_score";
        const std::string extra = kind == "Accuracy" ? "" : ", zero_division=0";
        checks.push_back({fmt::format("seed {} {} {}", seed, kind, p), feed(*metric, input, target),
                          fmt::format("M.{}(y, {}{})", fn, p, extra)});
      }
    }
    // A higher threshold, and a threshold no probability passes (precision 0/0 is 0).
    Precision strict({.task = "binary", .threshold = 0.8});
    checks.push_back({"threshold 0.8", feed(strict, probs, target),
                      "M.precision_score(y, pp8, zero_division=0)"});
    Precision none_positive({.task = "binary", .threshold = 1.0});
    checks.push_back({"nothing predicted positive", feed(none_positive, probs, target),
                      "M.precision_score(y, np.zeros_like(y), zero_division=0)"});
    for (const std::string normalize : {"none", "true", "pred", "all"}) {
      ConfusionMatrix cm({.task = "binary", .normalize = normalize});
      checks.push_back({"confmat " + normalize, feed(cm, logits, target),
                        fmt::format("M.confusion_matrix(y, pl, labels=[0, 1], normalize={})",
                                    normalize == "none" ? "None" : "'" + normalize + "'")});
    }
    expect_reference(fmt::format("probs = np.array({})\nlogits = np.array({})\ny = np.array({})\n"
                                 "pp = (probs > 0.5).astype(int)\n"
                                 "pp8 = (probs > 0.8).astype(int)\n"
                                 "pl = (1 / (1 + np.exp(-logits)) > 0.5).astype(int)\n",
                                 py(probs), py(logits), py(target)),
                     checks);
  }
}

// Class 3 occurs in target but is never predicted; class 4 never occurs at all. Precision of
// class 3 is 0/0: torchmetrics (and sklearn with zero_division=0) score it 0 and keep it in the
// macro average; class 4 is in neither, so both leave it out of macro averages.
TEST(Classification, NeverPredictedAndAbsentClassesFollowZeroDivision) {
  torch::manual_seed(6);
  const int64_t n = 150, c = 5;
  const auto preds = torch::randint(0, 3, {n}, torch::kLong);
  const auto target = torch::randint(0, 4, {n}, torch::kLong);
  std::vector<Check> checks;
  for (const auto& kind : kKinds) {
    for (const std::string average : {"micro", "macro", "weighted", "none"}) {
      auto metric = make(kind, {.task = "multiclass", .num_classes = c, .average = average});
      checks.push_back(
          {kind + " " + average, feed(*metric, preds, target), sk(kind, average, "y", "p")});
    }
  }
  ConfusionMatrix cm({.task = "multiclass", .num_classes = c, .normalize = "pred"});
  checks.push_back({"confmat pred", feed(cm, preds, target),
                    "M.confusion_matrix(y, p, labels=range(C), normalize='pred')"});
  expect_reference(
      fmt::format("C = {}\np = np.array({})\ny = np.array({})\n", c, py(preds), py(target)),
      checks);
}

TEST(Classification, IgnoreIndexLeavesSamplesOut) {
  torch::manual_seed(7);
  const int64_t n = 180, c = 3;
  const auto logits = torch::randn({n, c}, torch::kDouble);
  auto target = torch::randint(0, c, {n}, torch::kLong);
  target.masked_fill_(torch::rand({n}) < 0.2, -1);
  std::vector<Check> checks;
  for (const auto& kind : kKinds) {
    auto metric = make(
        kind, {.task = "multiclass", .num_classes = c, .average = "macro", .ignore_index = -1});
    checks.push_back(
        {kind, feed(*metric, logits, target), sk(kind, "macro", "y[keep]", "p[keep]")});
  }
  ConfusionMatrix cm({.task = "multiclass", .num_classes = c, .ignore_index = -1});
  checks.push_back({"confmat", feed(cm, logits, target),
                    "M.confusion_matrix(y[keep], p[keep], labels=range(C))"});
  Accuracy binary({.task = "binary", .ignore_index = -1});
  checks.push_back({"binary", feed(binary, logits.select(1, 0).contiguous(), target.clamp_max(1)),
                    "M.accuracy_score(np.minimum(y, 1)[keep], (logits[:, 0] > 0)[keep])"});
  expect_reference(fmt::format("C = {}\nlogits = np.array({})\ny = np.array({})\n"
                               "p = logits.argmax(1)\nkeep = y != -1\n",
                               c, py(logits), py(target)),
                   checks);
}

TEST(Classification, ExtraDimensionsAreSamples) {
  // [N, C, L] scores with [N, L] targets count like N * L samples.
  torch::manual_seed(8);
  const auto scores = torch::randn({6, 3, 5});
  const auto target = torch::randint(0, 3, {6, 5}, torch::kLong);
  Accuracy shaped({.task = "multiclass", .num_classes = 3});
  Accuracy flat({.task = "multiclass", .num_classes = 3});
  shaped.update(scores, target);
  flat.update(scores.movedim(1, -1).reshape({-1, 3}), target.reshape({-1}));
  EXPECT_DOUBLE_EQ(shaped.compute().item<double>(), flat.compute().item<double>());
}

TEST(Classification, BadInputsAreMetricErrorsNamingTheMetric) {
  Accuracy acc({.task = "multiclass", .num_classes = 3});
  const auto target = torch::tensor({0, 1, 2, 1}, torch::kLong);
  EXPECT_THAT(
      [&] {
        acc.update(torch::randn({4, 5}), target);
      },
      Throws<MetricError>("Accuracy", "num_classes=3"));
  EXPECT_THAT(
      [&] {
        acc.update(torch::randn({5, 3}), target);
      },
      Throws<MetricError>("Accuracy", "shape"));
  EXPECT_THAT(
      [&] {
        acc.update(torch::tensor({0, 1, 2, 3}), target);
      },
      Throws<MetricError>("Accuracy", "preds hold labels outside [0, 3)"));
  EXPECT_THAT(
      [&] {
        acc.update(torch::tensor({0, 1, 2, 1}), torch::tensor({0, 1, 3, 1}));
      },
      Throws<MetricError>("Accuracy", "target holds labels outside [0, 3)"));
  EXPECT_THAT(
      [&] {
        acc.update(torch::tensor({0, 1, 2, 1}), torch::tensor({0., 1., 2., 1.}));
      },
      Throws<MetricError>("Accuracy", "integer class labels"));
  auto nan_scores = torch::rand({4, 3});
  nan_scores[2][1] = NAN;
  EXPECT_THAT([&] { acc.update(nan_scores, target); }, Throws<MetricError>("Accuracy", "NaN"));
  EXPECT_EQ(acc.update_count(), 0);  // nothing half-counted
  EXPECT_THAT([&] { acc.compute(); }, Throws<MetricError>("Accuracy", "before any update"));

  F1Score f1({.task = "binary"});
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({3}), torch::tensor({0, 1, 2}));
      },
      Throws<MetricError>("F1Score", "binary labels 0 or 1"));
  EXPECT_THAT(
      [&] {
        f1.update(torch::rand({3}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("F1Score", "shape"));
  ConfusionMatrix cm({.task = "multiclass", .num_classes = 2});
  EXPECT_THAT(
      [&] {
        cm.update(torch::randn({2, 3}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("ConfusionMatrix", "num_classes=2"));
}

TEST(Classification, BadOptionsAreConfigErrors) {
  EXPECT_THAT([] { Accuracy({.task = "multi"}); }, Throws<ConfigError>("Accuracy", "\"multi\""));
  EXPECT_THAT([] { Precision({.task = "multiclass"}); },
              Throws<ConfigError>("Precision", "num_classes"));
  EXPECT_THAT([] { Recall({.task = "multiclass", .num_classes = 3, .average = "mean"}); },
              Throws<ConfigError>("Recall", "average"));
  EXPECT_THAT([] { Accuracy({.task = "multiclass", .num_classes = 3, .top_k = 4}); },
              Throws<ConfigError>("Accuracy", "top_k=4"));
  EXPECT_THAT([] { Accuracy({.task = "binary", .top_k = 2}); },
              Throws<ConfigError>("Accuracy", "top_k=2"));
  EXPECT_THAT([] { F1Score({.task = "multilabel", .num_classes = 3}); },
              Throws<ConfigError>("F1Score(task=\"multilabel\")", "num_labels >= 2, got none"));
  EXPECT_THAT([] { ConfusionMatrix({.task = "binary", .normalize = "rows"}); },
              Throws<ConfigError>("ConfusionMatrix", "normalize"));
}

}  // namespace
}  // namespace fulgur::metrics
