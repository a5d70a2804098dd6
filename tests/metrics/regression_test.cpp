// MeanSquaredError (and RMSE), MeanAbsoluteError and R2Score against sklearn on random data
// fed in uneven batches, R2's multioutput modes, and the shape checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/mean_absolute_error.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/r2_score.h"
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
  }
  MeanSquaredError mse2d;
  checks.push_back({"mse 2d", feed(mse2d, preds, target), "M.mean_squared_error(Y, P)"});
  expect_reference(setup, checks);
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
  EXPECT_THROW(R2Score({.multioutput = "mean"}), ConfigError);
  EXPECT_THROW(R2Score({.num_outputs = 0}), ConfigError);
}

}  // namespace
}  // namespace fulgur::metrics
