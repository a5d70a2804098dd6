// ConcordanceCorrCoef, WeightedMeanAbsolutePercentageError, LogCoshError, MinkowskiDistance,
// KLDivergence, TweedieDevianceScore, RelativeSquaredError, NormalizedRootMeanSquaredError,
// CriticalSuccessIndex and KendallRankCorrCoef against
// numpy/scipy/sklearn on random data fed in uneven batches (per output where they take
// num_outputs, far from zero for the concordance, rounded into ties for Kendall's tau), their
// edge values, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "fulgur/errors.h"
#include "fulgur/metrics/concordance_corr_coef.h"
#include "fulgur/metrics/critical_success_index.h"
#include "fulgur/metrics/kendall_rank_corr_coef.h"
#include "fulgur/metrics/kl_divergence.h"
#include "fulgur/metrics/log_cosh_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/minkowski_distance.h"
#include "fulgur/metrics/normalized_root_mean_squared_error.h"
#include "fulgur/metrics/relative_squared_error.h"
#include "fulgur/metrics/tweedie_deviance_score.h"
#include "fulgur/metrics/weighted_mean_absolute_percentage_error.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;
using fulgur::testing::values;

TEST(RegressionScores, MatchNumpyAndScipy) {
  torch::manual_seed(31);
  const int64_t n = 181;
  const auto y = torch::randn({n}, torch::kDouble) * 2 + 0.5;
  const auto p = y * 0.8 + torch::randn({n}, torch::kDouble) * 0.9 + 0.3;
  // Three outputs: different spreads, one far from zero.
  const auto y3 = torch::randn({n, 3}, torch::kDouble) * torch::tensor({1.0, 5.0, 0.2}) +
                  torch::tensor({0.0, 1e6, -2.0});
  const auto p3 = y3 + torch::randn({n, 3}, torch::kDouble) * torch::tensor({0.5, 3.0, 0.3});
  // Distributions: rows of positive weights, and log-probabilities.
  const auto a = torch::rand({n, 5}, torch::kDouble) + 0.05;
  const auto b = torch::rand({n, 5}, torch::kDouble) + 0.05;
  std::vector<Check> checks;
  const std::string ccc =
      "2 * np.cov(p, y)[0, 1] / (np.var(p, ddof=1) + np.var(y, ddof=1) + (p.mean() - y.mean()) ** "
      "2)";
  ConcordanceCorrCoef concordance, concordance3({.num_outputs = 3});
  EXPECT_FALSE(concordance3.is_scalar());
  EXPECT_EQ(concordance.higher_is_better(), true);
  checks.push_back({"concordance", feed(concordance, p, y), "ccc(p, y)"});
  checks.push_back({"concordance per output", feed(concordance3, p3, y3),
                    "[ccc(P[:, j], Y[:, j]) for j in range(3)]"});
  WeightedMeanAbsolutePercentageError wmape;
  checks.push_back({"wmape", feed(wmape, p, y), "np.abs(p - y).sum() / np.abs(y).sum()"});
  LogCoshError log_cosh, log_cosh3({.num_outputs = 3});
  checks.push_back({"log cosh", feed(log_cosh, p, y), "np.log(np.cosh(p - y)).mean()"});
  checks.push_back(
      {"log cosh per output", feed(log_cosh3, p3, y3), "np.log(np.cosh(P - Y)).mean(0)"});
  for (const double power : {1.0, 2.0, 3.5}) {
    MinkowskiDistance minkowski({.p = power});
    checks.push_back({fmt::format("minkowski p={}", power), feed(minkowski, p3, y3),
                      fmt::format("minkowski(P.ravel(), Y.ravel(), {})", power)});
  }
  for (const std::string reduction : {"mean", "sum", "none"}) {
    KLDivergence kl({.reduction = reduction}), kl_log({.log_prob = true, .reduction = reduction});
    EXPECT_EQ(kl.is_scalar(), reduction != "none");
    const auto rows = "np.array([entropy(a[i], b[i]) for i in range(len(a))])";
    const auto reference =
        reduction == "none" ? fmt::format("{}", rows) : fmt::format("{}.{}()", rows, reduction);
    checks.push_back({"kl " + reduction, feed(kl, a, b), reference});
    // Log-probabilities of the same rows, normalised: the same divergences.
    checks.push_back({"kl log_prob " + reduction,
                      feed(kl_log, (a / a.sum(1, true)).log(), (b / b.sum(1, true)).log()),
                      reference});
  }
  // Tweedie: every branch of the deviance; positive data where the power asks for it (zeros
  // in the target where it allows them).
  const auto positive_y = y.abs() + 0.05, positive_p = p.abs() + 0.05;
  const auto some_zeros = torch::where(y < 0, torch::zeros_like(y), y);
  for (const double power : {0.0, -1.0, 1.0, 1.5, 2.0, 3.0}) {
    TweedieDevianceScore tweedie({.power = power});
    const bool zeros_allowed = power >= 1 && power < 2;
    const auto target = power < 0 ? y : (zeros_allowed ? some_zeros : positive_y);
    const auto preds = power == 0 ? p : positive_p;
    checks.push_back({fmt::format("tweedie power={}", power), feed(tweedie, preds, target),
                      fmt::format("M.mean_tweedie_deviance(np.array({}), np.array({}), power={})",
                                  py(target), py(preds), power)});
  }
  RelativeSquaredError rse, rrse({.squared = false}), rse3({.num_outputs = 3});
  EXPECT_EQ(rse.higher_is_better(), false);
  EXPECT_TRUE(rse3.is_scalar());
  checks.push_back({"rse", feed(rse, p, y), "((p - y) ** 2).sum() / ((y - y.mean()) ** 2).sum()"});
  checks.push_back({"root rse", feed(rrse, p, y),
                    "np.sqrt(((p - y) ** 2).sum() / ((y - y.mean()) ** 2).sum())"});
  checks.push_back({"rse per output averaged", feed(rse3, p3, y3),
                    "(((P - Y) ** 2).sum(0) / ((Y - Y.mean(0)) ** 2).sum(0)).mean()"});
  // NRMSE: each normalization, one output and three moved far from zero (the std keeps its
  // digits).
  const std::map<std::string, std::string> scales{{"mean", "{0}.mean(0)"},
                                                  {"range", "({0}.max(0) - {0}.min(0))"},
                                                  {"std", "{0}.std(0)"},
                                                  {"l2", "np.sqrt(({0} ** 2).sum(0))"}};
  for (const auto& [normalization, scale] : scales) {
    NormalizedRootMeanSquaredError nrmse({.normalization = normalization}),
        nrmse3({.normalization = normalization, .num_outputs = 3});
    EXPECT_TRUE(nrmse.is_scalar());
    EXPECT_FALSE(nrmse3.is_scalar());
    checks.push_back(
        {"nrmse " + normalization, feed(nrmse, p, y),
         fmt::format(fmt::runtime("np.sqrt(((p - y) ** 2).mean(0)) / " + scale), "y")});
    checks.push_back(
        {"nrmse per output " + normalization, feed(nrmse3, p3 + 1e8, y3 + 1e8),
         fmt::format(fmt::runtime("np.sqrt(((Pf - Yf) ** 2).mean(0)) / " + scale), "Yf")});
  }
  // Kendall: one decimal for preds and integers for target make many ties in each.
  const auto kp = (p * 2).round() / 2, ky = y.round();
  for (const std::string variant : {"a", "b", "c"}) {
    KendallRankCorrCoef kendall({.variant = variant});
    // scipy's kendalltau has no variant "a": its definition over every pair instead.
    const auto reference =
        variant == "a" ? fmt::format("tau_a(np.array({}), np.array({}))", py(kp), py(ky))
                       : fmt::format("kendalltau(np.array({}), np.array({}), variant='{}')[0]",
                                     py(kp), py(ky), variant);
    checks.push_back({"kendall " + variant, feed(kendall, kp, ky), reference});
  }
  KendallRankCorrCoef kendall3({.num_outputs = 3});
  EXPECT_FALSE(kendall3.is_scalar());
  checks.push_back({"kendall per output", feed(kendall3, p3.round(), y3.round()),
                    "[kendalltau(np.round(P[:, j]), np.round(Y[:, j]))[0] for j in range(3)]"});
  expect_reference(
      fmt::format("from scipy.spatial.distance import minkowski\n"
                  "from scipy.stats import entropy, kendalltau\n"
                  "def tau_a(x, y):\n"
                  "    s = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])\n"
                  "    return s.sum() / (len(x) * (len(x) - 1))\n"
                  "def ccc(p, y):\n    return {}\n"
                  "y = np.array({})\np = np.array({})\n"
                  "Y = np.array({})\nP = np.array({})\n"
                  "a = np.array({})\nb = np.array({})\n"
                  "Yf = np.array({})\nPf = np.array({})\n",
                  ccc, py(y), py(p), py(y3), py(p3), py(a), py(b), py(y3 + 1e8), py(p3 + 1e8)),
      checks);
}

TEST(RegressionScores, NormalizedRootMeanSquaredErrorDocumentedValues) {
  // torchmetrics' documented values.
  const auto nrmse = [](const std::string& normalization, const torch::Tensor& preds,
                        const torch::Tensor& target, int64_t outputs = 1) {
    NormalizedRootMeanSquaredError metric({.normalization = normalization, .num_outputs = outputs});
    return metric.forward(preds, target);
  };
  const auto p = torch::tensor({3.0, 5.0, 2.5, 7.0}), y = torch::tensor({2.5, 5.0, 4.0, 8.0});
  EXPECT_NEAR(nrmse("mean", p, y).item<double>(), 0.1919, 5e-5);
  EXPECT_NEAR(nrmse("range", p, y).item<double>(), 0.1701, 5e-5);
  const auto p2 = torch::tensor({0.0, 1.0, 2.0, 3.0}), y2 = torch::tensor({0.0, 1.0, 2.0, 2.0});
  EXPECT_NEAR(nrmse("mean", p2, y2).item<double>(), 0.4, 1e-12);
  EXPECT_NEAR(nrmse("range", p2, y2).item<double>(), 0.25, 1e-12);
  EXPECT_NEAR(nrmse("std", p2, y2).item<double>(), 0.6030, 5e-5);
  const auto outputs =
      nrmse("mean", torch::tensor({{0.0, 1.0}, {2.0, 3.0}, {4.0, 5.0}, {6.0, 7.0}}),
            torch::tensor({{0.0, 1.0}, {3.0, 3.0}, {4.0, 5.0}, {8.0, 9.0}}), 2);
  EXPECT_NEAR(outputs[0].item<double>(), 0.2981, 5e-5);
  EXPECT_NEAR(outputs[1].item<double>(), 0.2222, 5e-5);
  EXPECT_EQ(NormalizedRootMeanSquaredError().higher_is_better(), false);
  EXPECT_THAT(
      [] { NormalizedRootMeanSquaredError({.normalization = "max"}); },
      Throws<ConfigError>("NormalizedRootMeanSquaredError(normalization=\"max\")", "\"l2\""));
  EXPECT_THAT([] { NormalizedRootMeanSquaredError({.num_outputs = 0}); },
              Throws<ConfigError>("NormalizedRootMeanSquaredError", "num_outputs"));
  NormalizedRootMeanSquaredError three({.num_outputs = 3});
  EXPECT_THAT(
      [&] {
        three.update(torch::rand({4, 2}), torch::rand({4, 2}));
      },
      Throws<MetricError>("NormalizedRootMeanSquaredError", "3"));
  EXPECT_THAT([&] { three.compute(); },
              Throws<MetricError>("NormalizedRootMeanSquaredError", "before any update"));
}

TEST(RegressionScores, CriticalSuccessIndexMatchesNumpy) {
  // torchmetrics' documented values.
  const auto x = torch::tensor({{0.2, 0.7}, {0.9, 0.3}}),
             y = torch::tensor({{0.4, 0.2}, {0.8, 0.6}});
  EXPECT_NEAR(CriticalSuccessIndex(0.5).forward(x, y).item<double>(), 1.0 / 3, 1e-12);
  CriticalSuccessIndex per_image(0.5, {.keep_sequence_dim = 0});
  EXPECT_FALSE(per_image.is_scalar());
  EXPECT_THAT(
      values(per_image.forward(torch::stack({x, x}), torch::stack({y, y}))),
      ::testing::Pointwise(::testing::DoubleNear(1e-12), std::vector<double>{1.0 / 3, 1.0 / 3}));
  // Compared in the inputs' precision: float 0.7 is an event at threshold 0.7 (in double it
  // would be 0.69999998...).
  const auto seventy = torch::tensor({0.7f, 0.1f});
  EXPECT_EQ(CriticalSuccessIndex(0.7).forward(seventy, seventy).item<double>(), 1.0);
  // No event at all: 0, as torchmetrics' safe divide.
  EXPECT_EQ(CriticalSuccessIndex(5).forward(seventy, seventy).item<double>(), 0.0);

  // A sequence of 4 frames of 5x5 per sample, fed in three uneven batches (feed's cuts).
  torch::manual_seed(33);
  const int64_t n = 37;
  const auto target = torch::rand({n, 4, 5, 5}, torch::kDouble);
  const auto preds = (target + 0.3 * torch::randn({n, 4, 5, 5}, torch::kDouble)).clamp(0, 1);
  CriticalSuccessIndex whole(0.6), per_frame(0.6, {.keep_sequence_dim = 1}),
      per_sample(0.6, {.keep_sequence_dim = 0});
  expect_reference(
      fmt::format("P = np.array({})\nY = np.array({})\n"
                  "def csi(p, y, axes):\n"
                  "    p, y = p >= 0.6, y >= 0.6\n"
                  "    h = (p & y).sum(axes); m = (y & ~p).sum(axes); f = (p & ~y).sum(axes)\n"
                  "    return h / (h + m + f)\n",
                  py(preds), py(target)),
      {{"whole", feed(whole, preds, target), "csi(P, Y, None)"},
       {"per frame, each update's joined", feed(per_frame, preds, target),
        "np.concatenate([csi(P[a:b], Y[a:b], (0, 2, 3)) for a, b in [(0, 12), (12, 19), (19, "
        "37)]])"},
       {"per sample", feed(per_sample, preds, target), "csi(P, Y, (1, 2, 3))"}});

  EXPECT_THAT([] { CriticalSuccessIndex(std::nan("")); },
              Throws<ConfigError>("CriticalSuccessIndex(threshold=nan)", "finite"));
  EXPECT_THAT([] { CriticalSuccessIndex(0.5, {.keep_sequence_dim = -1}); },
              Throws<ConfigError>("CriticalSuccessIndex(keep_sequence_dim=-1)", ">= 0"));
  CriticalSuccessIndex third(0.5, {.keep_sequence_dim = 2});
  EXPECT_THAT(
      [&] { third.update(x, y); },
      Throws<MetricError>("CriticalSuccessIndex", "keep_sequence_dim=2 is not a dimension"));
  EXPECT_THAT([&] { third.update(x, y.t().reshape({4})); },
              Throws<MetricError>("CriticalSuccessIndex", "must match"));
}

TEST(RegressionScores, EdgeValues) {
  const auto x = torch::arange(6, torch::kDouble);
  // Agreement on the identity line is 1; a perfect correlation off it is less than 1.
  ConcordanceCorrCoef same, shifted, constant;
  EXPECT_DOUBLE_EQ(same.forward(x, x).item<double>(), 1.0);
  EXPECT_LT(shifted.forward(x + 1, x).item<double>(), 0.9);
  EXPECT_DOUBLE_EQ(constant.forward(torch::full({6}, 2.0, torch::kDouble), x).item<double>(), 0.0);
  // An error of 1000 does not overflow cosh: log cosh(1000) = 1000 - log 2.
  LogCoshError large;
  EXPECT_NEAR(large.forward(torch::tensor({1000.0}), torch::tensor({0.0})).item<double>(),
              1000 - std::log(2.0), 1e-9);
  // A zero target total counts as 1.17e-6.
  WeightedMeanAbsolutePercentageError zero;
  EXPECT_NEAR(zero.forward(torch::tensor({1e-6, 0.0}), torch::zeros({2})).item<double>(),
              1e-6 / 1.17e-6, 1e-6);
  // A zero against a zero adds nothing; a zero q under a positive p is infinite.
  KLDivergence kl({.reduction = "none"});
  const auto rows = kl.forward(torch::tensor({{0.0, 1.0, 1.0}, {1.0, 1.0, 0.0}}),
                               torch::tensor({{0.0, 1.0, 3.0}, {1.0, 0.0, 1.0}}));
  EXPECT_NEAR(rows[0].item<double>(), 0.5 * std::log(0.5 / 0.25) + 0.5 * std::log(0.5 / 0.75),
              1e-12);
  EXPECT_EQ(rows[1].item<double>(), std::numeric_limits<double>::infinity());
  // Power 0 is the squared error; a constant target's total sum of squares counts as epsilon.
  TweedieDevianceScore normal;
  EXPECT_DOUBLE_EQ(normal.forward(x, x + 2).item<double>(), 4.0);
  RelativeSquaredError constant_target;
  EXPECT_NEAR(constant_target.forward(x, torch::zeros({6}, torch::kDouble)).item<double>(),
              55.0 / std::numeric_limits<double>::epsilon(), 1e4);
  // Kendall: a perfect and a reversed order are 1 and -1; a constant column has no tau.
  KendallRankCorrCoef same_order, reversed, flat;
  EXPECT_DOUBLE_EQ(same_order.forward(x, x * 3 + 1).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(reversed.forward(x, -x).item<double>(), -1.0);
  EXPECT_TRUE(std::isnan(flat.forward(x, torch::ones({6}, torch::kDouble)).item<double>()));
}

TEST(RegressionScores, BadOptionsAndInputs) {
  EXPECT_THAT([] { MinkowskiDistance({.p = 0.5}); },
              Throws<ConfigError>("MinkowskiDistance(p=0.5)", "at least 1"));
  EXPECT_THAT([] { KLDivergence({.reduction = "max"}); },
              Throws<ConfigError>("KLDivergence(reduction=\"max\")", "\"none\""));
  EXPECT_THAT([] { LogCoshError({.num_outputs = 0}); },
              Throws<ConfigError>("LogCoshError(num_outputs=0)", ">= 1"));
  EXPECT_THAT([] { ConcordanceCorrCoef({.num_outputs = 0}); },
              Throws<ConfigError>("ConcordanceCorrCoef(num_outputs=0)", ">= 1"));
  ConcordanceCorrCoef one;
  one.update(torch::tensor({1.0}), torch::tensor({2.0}));
  EXPECT_THAT([&] { one.compute(); },
              Throws<MetricError>("ConcordanceCorrCoef", "needs at least 2 samples"));
  LogCoshError two({.num_outputs = 2});
  EXPECT_THAT([&] { two.update(torch::rand({4}), torch::rand({4})); },
              Throws<MetricError>("LogCoshError", "with num_outputs=2 expected [N, 2]"));
  KLDivergence kl;
  EXPECT_THAT([&] { kl.update(torch::rand({4}), torch::rand({4})); },
              Throws<MetricError>("KLDivergence", "must be [N, D], not [4]"));
  EXPECT_THAT([] { TweedieDevianceScore({.power = 0.5}); },
              Throws<ConfigError>("TweedieDevianceScore(power=0.5)", "(0, 1)"));
  EXPECT_THAT([] { KendallRankCorrCoef({.variant = "d"}); },
              Throws<ConfigError>("KendallRankCorrCoef(variant=\"d\")", "\"a\", \"b\" or \"c\""));
  EXPECT_THAT([] { RelativeSquaredError({.num_outputs = 0}); },
              Throws<ConfigError>("RelativeSquaredError(num_outputs=0)", ">= 1"));
  TweedieDevianceScore gamma({.power = 2}), poisson({.power = 1}), negative({.power = -1});
  EXPECT_THAT(
      [&] {
        gamma.update(torch::tensor({1.0, 2.0}), torch::tensor({1.0, 0.0}));
      },
      Throws<MetricError>("TweedieDevianceScore",
                          "for power=2 preds and target must be strictly positive"));
  EXPECT_THAT([&] { poisson.update(torch::tensor({1.0}), torch::tensor({-1.0})); },
              Throws<MetricError>("TweedieDevianceScore", "target must not be negative"));
  EXPECT_THAT(
      [&] { negative.update(torch::tensor({0.0}), torch::tensor({-1.0})); },
      Throws<MetricError>("TweedieDevianceScore", "for power=-1 preds must be strictly positive"));
  EXPECT_EQ(gamma.update_count() + poisson.update_count() + negative.update_count(), 0);
  KendallRankCorrCoef single;
  single.update(torch::tensor({1.0}), torch::tensor({2.0}));
  EXPECT_THAT([&] { single.compute(); },
              Throws<MetricError>("KendallRankCorrCoef", "needs at least 2 samples"));
  WeightedMeanAbsolutePercentageError wmape;
  EXPECT_THAT([&] { wmape.update(torch::rand({4}), torch::rand({3})); },
              Throws<MetricError>("WeightedMeanAbsolutePercentageError", "must match"));
}

}  // namespace
}  // namespace fulgur::metrics
