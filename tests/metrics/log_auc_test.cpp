// LogAUC: torchmetrics' algorithm (ROC curve, both ends of the range interpolated, trapezoids
// over log10 fpr) written in numpy on sklearn's roc_curve, binary, multiclass and binned; a
// perfect and a reversed ranking; the errors.
#include "fulgur/metrics/log_auc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
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

// torchmetrics' LogAUC on a (fpr, tpr) curve, and the curves: sklearn's exact one, and the
// binned one at n thresholds evenly spaced over [0, 1] (the highest first).
const char* kLogAuc =
    "def interp(x, xp, fp):\n"
    "    i = int(np.clip(np.searchsorted(xp, x, side='right') - 1, 0, len(xp) - 2))\n"
    "    run = xp[i + 1] - xp[i]\n"
    "    return fp[i] + (0 if run == 0 else (fp[i + 1] - fp[i]) / run) * (x - xp[i])\n"
    "def logauc_of(fpr, tpr, lo, hi):\n"
    "    t = np.sort(np.concatenate([tpr, [interp(lo, fpr, tpr), interp(hi, fpr, tpr)]]))\n"
    "    f = np.sort(np.concatenate([fpr, [lo, hi]]))\n"
    "    a = np.searchsorted(f, lo, side='right') - 1\n"
    "    b = np.searchsorted(f, hi, side='right') - 1\n"
    "    return np.trapz(t[a:b + 1], np.log10(f[a:b + 1])) / (np.log10(hi) - np.log10(lo))\n"
    "def logauc(y, s, lo=0.001, hi=0.1):\n"
    "    fpr, tpr, _ = M.roc_curve(y, s, drop_intermediate=False)\n"
    "    return logauc_of(fpr, tpr, lo, hi)\n"
    "def binned(y, s, n, lo=0.001, hi=0.1):\n"
    "    th = np.linspace(0, 1, n)[::-1]\n"
    "    hit = s[None, :] >= th[:, None]\n"
    "    fpr = (hit & (y == 0)).sum(1) / (y == 0).sum()\n"
    "    tpr = (hit & (y == 1)).sum(1) / (y == 1).sum()\n"
    "    return logauc_of(fpr, tpr, lo, hi)\n";

TEST(LogAUC, MatchesTorchmetricsAlgorithmOnSklearnCurves) {
  torch::manual_seed(61);
  const int64_t n = 613, c = 3;
  const auto target = torch::randint(0, 2, {n}, torch::kLong);
  // Positives score higher on average; rounding makes ties (vertical and diagonal segments).
  const auto probs =
      ((target.to(torch::kDouble) * 0.35 + torch::rand({n}, torch::kDouble) * 0.65) * 200).round() /
      200;
  const auto labels = torch::randint(0, c, {n}, torch::kLong);
  const auto logits =
      torch::randn({n, c}, torch::kDouble) + 1.5 * torch::one_hot(labels, c).to(torch::kDouble);
  std::vector<Check> checks;
  LogAUC binary({.task = "binary"});
  EXPECT_TRUE(binary.is_scalar());
  EXPECT_EQ(binary.higher_is_better(), true);
  checks.push_back({"binary", feed(binary, probs, target), "logauc(y, s)"});
  LogAUC wide({.task = "binary", .fpr_range = {0.01, 1.0}});
  checks.push_back({"binary (0.01, 1)", feed(wide, probs, target), "logauc(y, s, 0.01, 1.0)"});
  LogAUC binned_binary({.task = "binary", .thresholds = int64_t{50}});
  checks.push_back({"binary binned", feed(binned_binary, probs, target), "binned(y, s, 50)"});
  LogAUC macro({.task = "multiclass", .num_classes = c});
  checks.push_back({"multiclass macro", feed(macro, logits, labels),
                    "np.mean([logauc(Y == k, P[:, k]) for k in range(3)])"});
  LogAUC none({.task = "multiclass", .num_classes = c, .average = "none"});
  EXPECT_FALSE(none.is_scalar());
  checks.push_back({"multiclass none", feed(none, logits, labels),
                    "[logauc(Y == k, P[:, k]) for k in range(3)]"});
  const auto multilabel_target = torch::randint(0, 2, {n, c}, torch::kLong);
  const auto multilabel_probs =
      (multilabel_target.to(torch::kDouble) * 0.3 + torch::rand({n, c}, torch::kDouble) * 0.7);
  LogAUC multilabel({.task = "multilabel", .num_labels = c, .average = "none"});
  checks.push_back({"multilabel none", feed(multilabel, multilabel_probs, multilabel_target),
                    "[logauc(YL[:, k], PL[:, k]) for k in range(3)]"});
  expect_reference(fmt::format("{}y = np.array({})\ns = np.array({})\nY = np.array({})\n"
                               "L = np.array({})\nP = np.exp(L) / np.exp(L).sum(1, keepdims=True)\n"
                               "YL = np.array({})\nPL = np.array({})\n",
                               kLogAuc, py(target), py(probs), py(labels), py(logits),
                               py(multilabel_target), py(multilabel_probs)),
                   checks, 1e-9);
}

TEST(LogAUC, PerfectAndReversedRankings) {
  const auto target = torch::tensor({0, 0, 0, 1, 1, 0, 1}, torch::kLong);
  const auto perfect = target.to(torch::kDouble) * 0.5 + 0.25;
  EXPECT_DOUBLE_EQ(LogAUC({.task = "binary"}).forward(perfect, target).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(LogAUC({.task = "binary"}).forward(1 - perfect, target).item<double>(), 0.0);
}

TEST(LogAUC, BadOptions) {
  EXPECT_THAT(
      [] {
        LogAUC({.task = "binary", .fpr_range = {0.1, 0.01}});
      },
      Throws<ConfigError>("LogAUC(fpr_range=(0.1, 0.01))", "0 < low < high <= 1"));
  EXPECT_THAT(
      [] {
        LogAUC({.task = "binary", .fpr_range = {0.0, 0.1}});
      },
      Throws<ConfigError>("LogAUC(fpr_range=(0, 0.1))", "log axis"));
  EXPECT_THAT([] { LogAUC({.task = "multiclass", .num_classes = 3, .average = "weighted"}); },
              Throws<ConfigError>("LogAUC(average=\"weighted\")", "\"none\""));
  EXPECT_THAT([] { LogAUC({.task = "multiclass"}); }, Throws<ConfigError>("LogAUC", "num_classes"));
  LogAUC binary({.task = "binary"});
  EXPECT_THAT([&] { binary.compute(); }, Throws<MetricError>("LogAUC", "before any update"));
}

}  // namespace
}  // namespace fulgur::metrics
