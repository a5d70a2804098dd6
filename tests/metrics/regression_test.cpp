// MeanSquaredError (and RMSE), MeanAbsoluteError, R2Score, ExplainedVariance,
// MeanAbsolutePercentageError, SymmetricMeanAbsolutePercentageError, MeanSquaredLogError,
// PearsonCorrCoef, SpearmanCorrCoef and CosineSimilarity against
// sklearn/scipy on random data fed in uneven batches, the multioutput modes and reductions, the
// undefined cases, and the shape checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/metrics/cosine_similarity.h"
#include "fulgur/metrics/explained_variance.h"
#include "fulgur/metrics/mean_absolute_error.h"
#include "fulgur/metrics/mean_absolute_percentage_error.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/mean_squared_log_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/pearson_corr_coef.h"
#include "fulgur/metrics/r2_score.h"
#include "fulgur/metrics/spearman_corr_coef.h"
#include "fulgur/metrics/symmetric_mean_absolute_percentage_error.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::py;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

at::Tensor feed(Metric& metric, const at::Tensor& preds, const at::Tensor& target) {
  const int64_t n = preds.size(0);
  for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 7}, {7, n / 2}, {n / 2, n}}) {
    metric.update(preds.slice(0, a, b), target.slice(0, a, b));
  }
  return metric.compute();
}

TEST(Regression, MatchesSklearn) {
  std::vector<Check> checks;
  std::string setup;
  for (int seed : {21, 22, 23}) {
    torch::manual_seed(seed);
    const int64_t n = 199;
    const auto target = torch::randn({n}, torch::kDouble) * 3 + 1;
    const auto preds = target + torch::randn({n}, torch::kDouble);
    // float32 inputs are summed in float64 too.
    const auto preds32 = preds.to(torch::kFloat);
    setup += fmt::format("y{0} = np.array({1})\np{0} = np.array({2})\nq{0} = np.array({3})\n", seed,
                         py(target), py(preds), py(preds32.to(torch::kDouble)));
    MeanSquaredError mse, rmse({.squared = false}), mse32;
    MeanAbsoluteError mae;
    R2Score r2;
    checks.push_back(
        {"mse", feed(mse, preds, target), fmt::format("M.mean_squared_error(y{0}, p{0})", seed)});
    checks.push_back({"rmse", feed(rmse, preds, target),
                      fmt::format("np.sqrt(M.mean_squared_error(y{0}, p{0}))", seed)});
    checks.push_back({"mse float32", feed(mse32, preds32, target),
                      fmt::format("M.mean_squared_error(y{0}, q{0})", seed)});
    checks.push_back(
        {"mae", feed(mae, preds, target), fmt::format("M.mean_absolute_error(y{0}, p{0})", seed)});
    checks.push_back({"r2", feed(r2, preds, target), fmt::format("M.r2_score(y{0}, p{0})", seed)});
    R2Score adjusted({.adjusted = 5});
    checks.push_back(
        {"adjusted r2", feed(adjusted, preds, target),
         fmt::format("1 - (1 - M.r2_score(y{0}, p{0})) * (199 - 1) / (199 - 5 - 1)", seed)});
    MeanAbsolutePercentageError mape;
    checks.push_back({"mape", feed(mape, preds, target),
                      fmt::format("M.mean_absolute_percentage_error(y{0}, p{0})", seed)});
    SymmetricMeanAbsolutePercentageError smape;
    checks.push_back(
        {"smape", feed(smape, preds, target),
         fmt::format("np.mean(2 * np.abs(p{0} - y{0}) / (np.abs(p{0}) + np.abs(y{0})))", seed)});
    // Non-negative data, as sklearn's mean_squared_log_error requires.
    MeanSquaredLogError msle;
    checks.push_back({"msle", feed(msle, preds.abs(), target.abs()),
                      fmt::format("M.mean_squared_log_error(np.abs(y{0}), np.abs(p{0}))", seed)});
    PearsonCorrCoef pearson;
    checks.push_back(
        {"pearson", feed(pearson, preds, target), fmt::format("pearsonr(p{0}, y{0})[0]", seed)});
  }
  // Three outputs with different spreads.
  torch::manual_seed(24);
  const auto target = torch::randn({120, 3}, torch::kDouble) * torch::tensor({1.0, 4.0, 0.5});
  const auto preds = target + torch::randn({120, 3}, torch::kDouble);
  setup += fmt::format("Y = np.array({})\nP = np.array({})\n", py(target), py(preds));
  for (const std::string mode : {"uniform_average", "variance_weighted", "raw_values"}) {
    R2Score r2({.num_outputs = 3, .multioutput = mode});
    EXPECT_EQ(r2.is_scalar(), mode != "raw_values");
    checks.push_back({"r2 " + mode, feed(r2, preds, target),
                      fmt::format("M.r2_score(Y, P, multioutput='{}')", mode)});
    R2Score adjusted({.num_outputs = 3, .multioutput = mode, .adjusted = 2});
    checks.push_back({"adjusted r2 " + mode, feed(adjusted, preds, target),
                      fmt::format("1 - (1 - np.asarray(M.r2_score(Y, P, multioutput='{}'))) * "
                                  "(120 - 1) / (120 - 2 - 1)",
                                  mode)});
    ExplainedVariance explained({.num_outputs = 3, .multioutput = mode});
    EXPECT_EQ(explained.is_scalar(), mode != "raw_values");
    checks.push_back({"explained variance " + mode, feed(explained, preds, target),
                      fmt::format("M.explained_variance_score(Y, P, multioutput='{}')", mode)});
  }
  MeanSquaredError mse2d;
  checks.push_back({"mse 2d", feed(mse2d, preds, target), "M.mean_squared_error(Y, P)"});
  expect_reference("from scipy.stats import pearsonr\n" + setup, checks);
}

TEST(Regression, ExplainedVarianceIgnoresAConstantOffset) {
  const auto target = torch::tensor({1.0, 3.0, 2.0, 5.0}, torch::kDouble);
  ExplainedVariance offset, exact, constant_target;
  // Off by 2 everywhere: R2 would punish it, the explained variance is whole.
  EXPECT_DOUBLE_EQ(offset.forward(target + 2, target).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(exact.forward(target, target).item<double>(), 1.0);
  // A constant target with errors that vary: 0, not -inf (force_finite).
  EXPECT_DOUBLE_EQ(
      constant_target.forward(target, torch::full({4}, 2.0, torch::kDouble)).item<double>(), 0.0);
  EXPECT_THAT([] { ExplainedVariance({.multioutput = "mean"}); },
              ThrowsMessage<ConfigError>(HasSubstr("ExplainedVariance(multioutput=\"mean\")")));
  EXPECT_THAT(
      [] { ExplainedVariance({.num_outputs = 0}); },
      ThrowsMessage<ConfigError>(HasSubstr("ExplainedVariance(num_outputs=0) must be >= 1")));
  ExplainedVariance two({.num_outputs = 2});
  EXPECT_THAT([&] { two.update(torch::rand({3}), torch::rand({3})); },
              ThrowsMessage<MetricError>(
                  HasSubstr("ExplainedVariance: preds has shape [3]; with num_outputs=2 expected "
                            "[N, 2]")));
}

// Data far from zero relative to its spread: one-pass sums of squares would cancel to noise;
// the merged per-batch moments keep the correlation to 1e-9.
TEST(Regression, PearsonKeepsItsDigitsFarFromZero) {
  torch::manual_seed(25);
  const int64_t n = 300;
  const auto target = torch::randn({n}, torch::kDouble) + 1e8;
  const auto preds = target + torch::randn({n}, torch::kDouble) * 0.5;
  PearsonCorrCoef pearson;
  expect_reference(fmt::format("from scipy.stats import pearsonr\ny = np.array({})\n"
                               "p = np.array({})\n",
                               py(target), py(preds)),
                   {{"pearson 1e8", feed(pearson, preds, target), "pearsonr(p, y)[0]"}}, 1e-9);
  // A constant input has no correlation: NaN, as torchmetrics and scipy.
  PearsonCorrCoef constant;
  EXPECT_TRUE(std::isnan(constant.forward(torch::ones({4}), torch::rand({4})).item<double>()));
  // Exact lines give exactly +-1 (clamped against rounding).
  PearsonCorrCoef line;
  const auto x = torch::arange(10, torch::kDouble);
  EXPECT_DOUBLE_EQ(line.forward(3 * x + 1, x).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(line.forward(-2 * x, x).item<double>(), -1.0);
}

TEST(Regression, SpearmanMatchesScipyWithTies) {
  std::vector<Check> checks;
  std::string setup = "from scipy.stats import spearmanr\n";
  for (int seed : {26, 27}) {
    torch::manual_seed(seed);
    const int64_t n = 157;
    const auto target = torch::randn({n}, torch::kDouble);
    const auto preds = target.exp() + torch::randn({n}, torch::kDouble) * 0.5;
    // Rounded: ties in both preds and target, which share their mean rank.
    const auto tied_target = (target * 2).round(), tied_preds = (preds * 2).round();
    setup += fmt::format(
        "y{0} = np.array({1})\np{0} = np.array({2})\nty{0} = np.array({3})\n"
        "tp{0} = np.array({4})\n",
        seed, py(target), py(preds), py(tied_target), py(tied_preds));
    SpearmanCorrCoef plain, tied;
    checks.push_back({fmt::format("seed {}", seed), feed(plain, preds, target),
                      fmt::format("spearmanr(p{0}, y{0})[0]", seed)});
    checks.push_back({fmt::format("seed {} tied", seed), feed(tied, tied_preds, tied_target),
                      fmt::format("spearmanr(tp{0}, ty{0})[0]", seed)});
  }
  expect_reference(setup, checks);
  // Any increasing map of the data keeps the ranks: exactly 1; a constant input gives NaN.
  SpearmanCorrCoef monotone, constant;
  const auto x = torch::randn({50}, torch::kDouble);
  EXPECT_DOUBLE_EQ(monotone.forward(x.exp() * 3 + 7, x).item<double>(), 1.0);
  EXPECT_TRUE(std::isnan(constant.forward(torch::ones({4}), torch::rand({4})).item<double>()));
}

// num_outputs columns scored each on its own, as scipy column by column; the columns differ
// (one tied, one far from zero, one anti-correlated) so a mixed-up column shows.
TEST(Regression, CorrelationsPerOutputMatchScipy) {
  torch::manual_seed(29);
  const int64_t n = 143;
  const auto target = torch::randn({n, 3}, torch::kDouble);
  auto preds = target + torch::randn({n, 3}, torch::kDouble) * 0.7;
  preds.select(1, 0).mul_(2).round_();
  preds.select(1, 1).add_(1e6);
  preds.select(1, 2).neg_();
  PearsonCorrCoef pearson({.num_outputs = 3});
  SpearmanCorrCoef spearman({.num_outputs = 3});
  EXPECT_FALSE(pearson.is_scalar());
  EXPECT_FALSE(spearman.is_scalar());
  const auto p = feed(pearson, preds, target), s = feed(spearman, preds, target);
  ASSERT_EQ(p.sizes(), (at::IntArrayRef{3}));
  ASSERT_EQ(s.sizes(), (at::IntArrayRef{3}));
  expect_reference(fmt::format("from scipy.stats import pearsonr, spearmanr\n"
                               "y = np.array({})\np = np.array({})\n",
                               py(target), py(preds)),
                   {{"pearson", p, "[pearsonr(p[:, i], y[:, i])[0] for i in range(3)]"},
                    {"spearman", s, "[spearmanr(p[:, i], y[:, i])[0] for i in range(3)]"}});
  // [N, 1] is one output too, scored as a 0-dim value.
  PearsonCorrCoef one;
  EXPECT_EQ(one.forward(preds.slice(1, 0, 1), target.slice(1, 0, 1)).dim(), 0);
}

TEST(Regression, CosineSimilarityMatchesSklearnForEachReduction) {
  torch::manual_seed(28);
  const auto target = torch::randn({90, 5}, torch::kDouble);
  const auto preds = target + torch::randn({90, 5}, torch::kDouble);
  std::vector<Check> checks;
  for (const std::string reduction : {"sum", "mean", "none"}) {
    CosineSimilarity cosine({.reduction = reduction});
    EXPECT_EQ(cosine.is_scalar(), reduction != "none");
    checks.push_back({reduction, feed(cosine, preds, target),
                      fmt::format("np.{}(rows)", reduction == "none" ? "asarray" : reduction)});
  }
  expect_reference(fmt::format("y = np.array({})\np = np.array({})\n"
                               "rows = np.diag(M.pairwise.cosine_similarity(p, y))\n",
                               py(target), py(preds)),
                   checks);
  CosineSimilarity defaults;
  EXPECT_EQ(
      defaults
          .forward(torch::tensor({{1.0, 0.0}, {0.0, 2.0}}), torch::tensor({{3.0, 0.0}, {1.0, 0.0}}))
          .item<double>(),
      1.0);  // torchmetrics' default reduction is the sum: 1 + 0
}

TEST(Regression, ChecksShapesAndSampleCount) {
  MeanSquaredError mse;
  EXPECT_THAT([&] { mse.update(torch::rand({3}), torch::rand({4})); },
              ThrowsMessage<MetricError>(HasSubstr("MeanSquaredError: preds has shape [3]")));
  EXPECT_THAT([&] { mse.compute(); }, ThrowsMessage<MetricError>(HasSubstr("before any update")));
  R2Score r2;
  EXPECT_THAT(
      [&] {
        r2.update(torch::rand({3, 2}), torch::rand({3, 2}));
      },
      ThrowsMessage<MetricError>(HasSubstr("num_outputs=1")));
  r2.update(torch::tensor({1.0}), torch::tensor({2.0}));
  EXPECT_THAT([&] { r2.compute(); }, ThrowsMessage<MetricError>(HasSubstr("at least 2 samples")));
  EXPECT_THAT([] { R2Score({.multioutput = "mean"}); },
              ThrowsMessage<ConfigError>(HasSubstr("R2Score(multioutput=\"mean\") is not valid")));
  EXPECT_THAT([] { R2Score({.num_outputs = 0}); },
              ThrowsMessage<ConfigError>(HasSubstr("R2Score(num_outputs=0) must be >= 1")));
  EXPECT_THAT([] { R2Score({.adjusted = -1}); },
              ThrowsMessage<ConfigError>(HasSubstr("R2Score(adjusted=-1) must be the number of "
                                                   "regressors")));
  // As many regressors as samples - 1 (or more): undefined, so the plain R^2 with a warning.
  const auto y4 = torch::tensor({1.0, 2.0, 4.0, 3.0}), p4 = torch::tensor({1.5, 2.0, 3.0, 3.5});
  R2Score plain, too_many({.adjusted = 3});
  const double r2_4 = plain.forward(p4, y4).item<double>();
  ::testing::internal::CaptureStderr();
  EXPECT_DOUBLE_EQ(too_many.forward(p4, y4).item<double>(), r2_4);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("R2Score(adjusted=3): 4 samples are too few for 3 regressors"));
  R2Score two_regressors({.adjusted = 2});
  EXPECT_DOUBLE_EQ(two_regressors.forward(p4, y4).item<double>(), 1 - (1 - r2_4) * 3.0 / 1.0);
  PearsonCorrCoef pearson;
  EXPECT_THAT(
      [&] {
        pearson.update(torch::rand({3, 2}), torch::rand({3, 2}));
      },
      ThrowsMessage<MetricError>(
          HasSubstr("PearsonCorrCoef: preds has shape [3, 2]; with num_outputs=1 expected [N]")));
  pearson.update(torch::tensor({1.0}), torch::tensor({2.0}));
  pearson.update(torch::zeros({0}), torch::zeros({0}));
  EXPECT_THAT([&] { pearson.compute(); },
              ThrowsMessage<MetricError>(HasSubstr("PearsonCorrCoef: needs at least 2 samples")));
  SpearmanCorrCoef spearman;
  EXPECT_THAT(
      [&] {
        spearman.update(torch::rand({3, 2}), torch::rand({3, 2}));
      },
      ThrowsMessage<MetricError>(
          HasSubstr("SpearmanCorrCoef: preds has shape [3, 2]; with num_outputs=1 expected [N]")));
  SpearmanCorrCoef two({.num_outputs = 2});
  EXPECT_THAT(
      [&] {
        two.update(torch::rand({3, 3}), torch::rand({3, 3}));
      },
      ThrowsMessage<MetricError>(HasSubstr("with num_outputs=2 expected [N, 2]")));
  EXPECT_THAT([] { PearsonCorrCoef({.num_outputs = 0}); },
              ThrowsMessage<ConfigError>(HasSubstr("PearsonCorrCoef(num_outputs=0) must be >= 1")));
  spearman.update(torch::tensor({1.0}), torch::tensor({2.0}));
  EXPECT_THAT([&] { spearman.compute(); },
              ThrowsMessage<MetricError>(HasSubstr("SpearmanCorrCoef: needs at least 2 samples")));
  CosineSimilarity cosine;
  EXPECT_THAT(
      [&] { cosine.update(torch::rand({3}), torch::rand({3})); },
      ThrowsMessage<MetricError>(HasSubstr("CosineSimilarity: preds and target must be [N, D]")));
  EXPECT_THAT(
      [] { CosineSimilarity({.reduction = "max"}); },
      ThrowsMessage<ConfigError>(HasSubstr("CosineSimilarity(reduction=\"max\") is not valid")));
  // A target of 0 counts as 1.17e-6 (torchmetrics' guard), not a division by zero.
  MeanAbsolutePercentageError mape;
  EXPECT_NEAR(mape.forward(torch::tensor({1e-6, 2.0}, torch::kDouble),
                           torch::tensor({0.0, 4.0}, torch::kDouble))
                  .item<double>(),
              (1e-6 / 1.17e-6 + 0.5) / 2, 1e-12);
  // Both 0: a denominator of 1.17e-6 and an error of 0; one of them 0: the largest error, 2.
  SymmetricMeanAbsolutePercentageError smape;
  EXPECT_DOUBLE_EQ(smape
                       .forward(torch::tensor({0.0, 0.0, 3.0}, torch::kDouble),
                                torch::tensor({0.0, 5.0, 1.0}, torch::kDouble))
                       .item<double>(),
                   (0 + 2 + 1.0) / 3);
  MeanSquaredLogError msle;
  EXPECT_THAT(
      [&] {
        msle.update(torch::tensor({0.5, -1.0}), torch::tensor({1.0, 2.0}));
      },
      ThrowsMessage<MetricError>(
          HasSubstr("MeanSquaredLogError: preds and target must be greater than -1")));
  EXPECT_EQ(msle.update_count(), 0);
  // log(1 + x) is defined above -1, so small negative values are scored.
  EXPECT_NEAR(msle.forward(torch::tensor({-0.5}), torch::tensor({1.0})).item<double>(),
              std::pow(std::log(0.5) - std::log(2.0), 2), 1e-6);
  // The sums keep torchmetrics' state names.
  const auto state = msle.state_dict().toGenericDict();
  EXPECT_TRUE(state.contains("sum_squared_log_error"));
  EXPECT_TRUE(MeanAbsoluteError().state_dict().toGenericDict().contains("sum_abs_error"));
}

}  // namespace
}  // namespace fulgur::metrics
