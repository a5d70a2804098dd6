// RecallAtFixedPrecision, PrecisionAtFixedRecall, SensitivityAtSpecificity and
// SpecificityAtSensitivity: torchmetrics' documented values, exact and binned curves against
// the same rules applied in Python to sklearn's precision_recall_curve and roc_curve, per
// class and per label, the thresholds returned, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/precision_at_fixed_recall.h"
#include "fulgur/metrics/recall_at_fixed_precision.h"
#include "fulgur/metrics/sensitivity_at_specificity.h"
#include "fulgur/metrics/specificity_at_sensitivity.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

template <typename M>
OperatingPoints points_of(M&& metric, const at::Tensor& preds, const at::Tensor& target) {
  metric.update(preds, target);
  return metric.operating_points();
}

TEST(OperatingPoint, TorchmetricsDocumentedValues) {
  const auto preds = torch::tensor({0.0, 0.5, 0.7, 0.8});
  const auto target = torch::tensor({0, 1, 1, 0});
  // BinaryRecallAtFixedPrecision(min_precision=0.5): (1.0, 0.5); with thresholds=5: (1.0, 0.5).
  for (const std::optional<CurveThresholds>& thresholds :
       {std::optional<CurveThresholds>(), std::optional<CurveThresholds>(5)}) {
    const auto r = points_of(
        RecallAtFixedPrecision(0.5, {.task = "binary", .thresholds = thresholds}), preds, target);
    EXPECT_DOUBLE_EQ(r.value.item<double>(), 1.0);
    EXPECT_NEAR(r.threshold.item<double>(), 0.5, 1e-7);
  }
  // BinarySensitivityAtSpecificity(min_specificity=0.5): (1.0, 0.5); binned at 5: (1.0, 0.5).
  for (const std::optional<CurveThresholds>& thresholds :
       {std::optional<CurveThresholds>(), std::optional<CurveThresholds>(5)}) {
    const auto s = points_of(
        SensitivityAtSpecificity(0.5, {.task = "binary", .thresholds = thresholds}), preds, target);
    EXPECT_DOUBLE_EQ(s.value.item<double>(), 1.0);
    EXPECT_NEAR(s.threshold.item<double>(), 0.5, 1e-7);
  }
  // MulticlassRecallAtFixedPrecision(num_classes=5, min_precision=0.5):
  // (tensor([1., 1., 0., 0., 0.]), tensor([7.5e-01, 7.5e-01, 1e+06, 1e+06, 1e+06])).
  const auto scores = torch::tensor({{0.75, 0.05, 0.05, 0.05, 0.05},
                                     {0.05, 0.75, 0.05, 0.05, 0.05},
                                     {0.05, 0.05, 0.75, 0.05, 0.05},
                                     {0.05, 0.05, 0.05, 0.75, 0.05}});
  const auto classes = torch::tensor({0, 1, 3, 2});
  RecallAtFixedPrecision multiclass(0.5, {.task = "multiclass", .num_classes = 5});
  EXPECT_FALSE(multiclass.is_scalar());
  const auto m = points_of(std::move(multiclass), scores, classes);
  EXPECT_TRUE(torch::allclose(m.value, torch::tensor({1.0, 1.0, 0.0, 0.0, 0.0}, torch::kDouble)));
  EXPECT_TRUE(torch::allclose(m.threshold,
                              torch::tensor({0.75, 0.75, 1e6, 1e6, 1e6}, torch::kDouble), 1e-6));
}

TEST(OperatingPoint, MatchesTheRulesOnSklearnCurves) {
  torch::manual_seed(61);
  const int64_t n = 233, c = 3;
  const auto logits = torch::randn({n}, torch::kDouble);
  const auto outcomes = (logits + torch::randn({n}, torch::kDouble)).gt(0).to(torch::kLong);
  // Rounded scores: tied points move together.
  const auto probabilities = (torch::sigmoid(logits) * 20).round() / 20;
  const auto class_scores = torch::randn({n, c}, torch::kDouble).softmax(1);
  const auto classes = (class_scores + 0.3 * torch::rand({n, c}, torch::kDouble)).argmax(1);
  const auto label_logits = torch::randn({n, c}, torch::kDouble);
  const auto labels = (label_logits + torch::randn({n, c}, torch::kDouble)).gt(0).to(torch::kLong);
  // The rules, on sklearn's curves (thresholds beyond 1 dropped as torchmetrics' origin at 1).
  const std::string setup = fmt::format(
      "def pr(y, p):\n"
      "    prec, rec, thr = M.precision_recall_curve(y, p)\n"
      "    return prec[:-1], rec[:-1], thr\n"
      "def roc(y, p):\n"
      "    fpr, tpr, thr = M.roc_curve(y, p, drop_intermediate=False)\n"
      "    return fpr, tpr, np.minimum(thr, 1.0)\n"
      "def best_pr(v, c, t, m):\n"
      "    ok = [(a, b, u) for a, b, u in zip(v, c, t) if b >= m]\n"
      "    if not ok: return (0.0, 1e6)\n"
      "    a, b, u = max(ok)\n"
      "    return (a, u) if a > 0 else (0.0, 1e6)\n"
      "def best_roc(v, c, t, m):\n"
      "    ok = np.flatnonzero(c >= m)\n"
      "    if len(ok) == 0: return (0.0, 1e6)\n"
      "    i = ok[np.argmax(v[ok])]\n"
      "    return (v[i], t[i])\n"
      "def rfp(y, p, m): prec, rec, thr = pr(y, p); return best_pr(rec, prec, thr, m)\n"
      "def pfr(y, p, m): prec, rec, thr = pr(y, p); return best_pr(prec, rec, thr, m)\n"
      "def sas(y, p, m): fpr, tpr, thr = roc(y, p); return best_roc(tpr, 1 - fpr, thr, m)\n"
      "def sps(y, p, m): fpr, tpr, thr = roc(y, p); return best_roc(1 - fpr, tpr, thr, m)\n"
      "def per(fn, Y, P, m): return np.array([fn(Y[:, j], P[:, j], m) for j in range(3)]).T\n"
      "yb = np.array({})\npb = np.array({})\n"
      "yc = np.eye(3)[np.array({})]\npc = np.array({})\n"
      "yl = np.array({})\npl = 1 / (1 + np.exp(-np.array({})))\n",
      py(outcomes), py(probabilities), py(classes), py(class_scores), py(labels), py(label_logits));
  std::vector<Check> checks;
  const auto both = [](const OperatingPoints& p) { return torch::stack({p.value, p.threshold}); };
  for (const double minimum : {0.3, 0.6, 0.85}) {
    const auto tag = fmt::format(" min {}", minimum);
    checks.push_back({"recall at precision binary" + tag,
                      both(points_of(RecallAtFixedPrecision(minimum, {.task = "binary"}),
                                     probabilities, outcomes)),
                      fmt::format("rfp(yb, pb, {})", minimum)});
    checks.push_back({"precision at recall binary" + tag,
                      both(points_of(PrecisionAtFixedRecall(minimum, {.task = "binary"}),
                                     probabilities, outcomes)),
                      fmt::format("pfr(yb, pb, {})", minimum)});
    checks.push_back({"sensitivity at specificity binary" + tag,
                      both(points_of(SensitivityAtSpecificity(minimum, {.task = "binary"}),
                                     probabilities, outcomes)),
                      fmt::format("sas(yb, pb, {})", minimum)});
    checks.push_back({"specificity at sensitivity binary" + tag,
                      both(points_of(SpecificityAtSensitivity(minimum, {.task = "binary"}),
                                     probabilities, outcomes)),
                      fmt::format("sps(yb, pb, {})", minimum)});
    checks.push_back(
        {"recall at precision multiclass" + tag,
         both(points_of(RecallAtFixedPrecision(minimum, {.task = "multiclass", .num_classes = c}),
                        class_scores, classes)),
         fmt::format("per(rfp, yc, pc, {})", minimum)});
    checks.push_back(
        {"specificity at sensitivity multilabel" + tag,
         both(points_of(SpecificityAtSensitivity(minimum, {.task = "multilabel", .num_labels = c}),
                        label_logits, labels)),
         fmt::format("per(sps, yl, pl, {})", minimum)});
  }
  expect_reference(setup, checks);
}

TEST(OperatingPoint, BinnedCurvesAndSyncedStates) {
  // Binned at 11 thresholds: the same rule on numpy's counts of scores >= each threshold.
  torch::manual_seed(62);
  const int64_t n = 150;
  const auto scores = torch::rand({n}, torch::kDouble);
  const auto target = (scores + 0.5 * torch::randn({n}, torch::kDouble)).gt(0.5).to(torch::kLong);
  PrecisionAtFixedRecall binned(0.7, {.task = "binary", .thresholds = 11});
  const auto value = feed(binned, scores, target);
  const auto points = binned.operating_points();
  expect_reference(
      fmt::format("y = np.array({})\np = np.array({})\nt = np.linspace(0, 1, 11)\n"
                  "c = p[:, None] >= t[None, :]\n"
                  "tp = (c & (y[:, None] == 1)).sum(0)\nfp = (c & (y[:, None] == 0)).sum(0)\n"
                  "prec = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0.0)\n"
                  "rec = tp / (y == 1).sum()\n"
                  "ok = [(a, b, u) for a, b, u in zip(prec, rec, t) if b >= 0.7]\n"
                  "best = max(ok)\n",
                  py(target), py(scores)),
      {{"binned precision at recall 0.7", torch::stack({value, points.threshold}),
        "(best[0], best[2])"}});
  EXPECT_DOUBLE_EQ(value.item<double>(), points.value.item<double>());
}

TEST(OperatingPoint, BadOptions) {
  EXPECT_THAT([] { RecallAtFixedPrecision(1.5, {.task = "binary"}); },
              Throws<ConfigError>("RecallAtFixedPrecision(min_precision=1.5)", "[0, 1]"));
  EXPECT_THAT([] { SpecificityAtSensitivity(-0.1, {.task = "binary"}); },
              Throws<ConfigError>("SpecificityAtSensitivity(min_sensitivity=-0.1)", "[0, 1]"));
  EXPECT_THAT([] { SensitivityAtSpecificity(0.5, {.task = "multiclass"}); },
              Throws<ConfigError>("SensitivityAtSpecificity", "num_classes >= 2"));
  PrecisionAtFixedRecall metric(0.5, {.task = "binary"});
  EXPECT_THAT([&] { metric.compute(); },
              Throws<MetricError>("PrecisionAtFixedRecall", "before any update()"));
}

}  // namespace
}  // namespace fulgur::metrics
