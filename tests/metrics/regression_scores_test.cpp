// ConcordanceCorrCoef, WeightedMeanAbsolutePercentageError, LogCoshError, MinkowskiDistance and
// KLDivergence against numpy/scipy on random data fed in uneven batches (per output where
// they take num_outputs, far from zero for the concordance), their edge values, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "fulgur/errors.h"
#include "fulgur/metrics/concordance_corr_coef.h"
#include "fulgur/metrics/kl_divergence.h"
#include "fulgur/metrics/log_cosh_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/minkowski_distance.h"
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
  expect_reference(fmt::format("from scipy.spatial.distance import minkowski\n"
                               "from scipy.stats import entropy\n"
                               "def ccc(p, y):\n    return {}\n"
                               "y = np.array({})\np = np.array({})\n"
                               "Y = np.array({})\nP = np.array({})\n"
                               "a = np.array({})\nb = np.array({})\n",
                               ccc, py(y), py(p), py(y3), py(p3), py(a), py(b)),
                   checks);
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
  WeightedMeanAbsolutePercentageError wmape;
  EXPECT_THAT([&] { wmape.update(torch::rand({4}), torch::rand({3})); },
              Throws<MetricError>("WeightedMeanAbsolutePercentageError", "must match"));
}

}  // namespace
}  // namespace fulgur::metrics
