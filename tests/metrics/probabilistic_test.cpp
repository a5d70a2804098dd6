// JensenShannonDivergence against scipy's jensenshannon (whose square it is) on probabilities,
// counts and log-probabilities, and ContinuousRankedProbabilityScore against its pairwise
// definition in numpy; their properties and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/continuous_ranked_probability_score.h"
#include "fulgur/metrics/jensen_shannon_divergence.h"
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

TEST(JensenShannonDivergence, MatchesScipy) {
  torch::manual_seed(41);
  auto p = torch::rand({17, 6}, torch::kDouble);
  auto q = torch::rand({17, 6}, torch::kDouble);
  p.index_put_({0, 2}, 0.0);  // a zero share adds nothing
  std::vector<Check> checks;
  JensenShannonDivergence mean;
  checks.push_back({"mean", feed(mean, p, q), "js(P, Q).mean()"});
  JensenShannonDivergence summed({.reduction = "sum"});
  checks.push_back({"sum", feed(summed, p * 7, q * 3), "js(P, Q).sum()"});  // unnormalised rows
  JensenShannonDivergence each({.reduction = "none"});
  checks.push_back({"none", feed(each, p, q), "js(P, Q)"});
  const auto log_p = (p + 0.01).log_softmax(1), log_q = q.log_softmax(1);
  JensenShannonDivergence logs({.log_prob = true});
  checks.push_back({"log_prob", feed(logs, log_p, log_q), "js(np.exp(LP), np.exp(LQ)).mean()"});
  expect_reference(
      "from scipy.spatial.distance import jensenshannon\n"
      "def js(a, b):\n"
      "    return np.array([jensenshannon(x, y) ** 2 for x, y in zip(a, b)])\n"
      "P = np.array(" +
          py(p) + ")\nQ = np.array(" + py(q) + ")\nLP = np.array(" + py(log_p) +
          ")\nLQ = np.array(" + py(log_q) + ")\n",
      checks, 1e-12);
  // Symmetric, 0 for equal rows, ln 2 for disjoint ones.
  JensenShannonDivergence a, b, disjoint;
  EXPECT_NEAR(a.forward(p, q).item<double>(), b.forward(q, p).item<double>(), 1e-15);
  EXPECT_NEAR(
      disjoint.forward(torch::tensor({{1.0, 0.0}}), torch::tensor({{0.0, 1.0}})).item<double>(),
      std::log(2.0), 1e-15);
  EXPECT_EQ(a.higher_is_better(), false);
  EXPECT_THAT([] { JensenShannonDivergence({.reduction = "avg"}); },
              Throws<ConfigError>("JensenShannonDivergence(reduction=\"avg\")", "\"none\""));
}

TEST(ContinuousRankedProbabilityScore, MatchesThePairwiseDefinition) {
  torch::manual_seed(42);
  const auto target = torch::randn({23}, torch::kDouble);
  const auto preds = target.unsqueeze(1) + torch::randn({23, 9}, torch::kDouble) * 0.8 + 0.2;
  ContinuousRankedProbabilityScore crps;
  ContinuousRankedProbabilityScore float_inputs;
  expect_reference(
      "P = np.array(" + py(preds) + ")\nT = np.array(" + py(target) +
          ")\n"
          "def crps(p, t):\n"
          "    m = p.shape[1]\n"
          "    spread = np.abs(p - t[:, None]).mean(1)\n"
          "    pairs = np.abs(p[:, :, None] - p[:, None, :]).sum((1, 2)) / (2 * m * m)\n"
          "    return (spread - pairs).mean()\n",
      {{"CRPS", feed(crps, preds, target), "crps(P, T)"},
       {"float32", feed(float_inputs, preds.to(torch::kFloat), target.to(torch::kFloat)),
        "crps(P.astype(np.float32).astype(float), T.astype(np.float32).astype(float))"}},
      1e-9);
  // Two members at the target: a perfect forecast; both at a distance d: d.
  ContinuousRankedProbabilityScore exact, off;
  EXPECT_EQ(exact.forward(torch::tensor({{1.0, 1.0}}), torch::tensor({1.0})).item<double>(), 0.0);
  EXPECT_EQ(off.forward(torch::tensor({{3.0, 3.0}}), torch::tensor({1.0})).item<double>(), 2.0);
  EXPECT_EQ(crps.higher_is_better(), false);
  EXPECT_THAT(
      [&] {
        crps.update(torch::zeros({4, 1}), torch::zeros({4}));
      },
      Throws<MetricError>("at least 2 members", "not [4, 1] and [4]"));
  EXPECT_THAT(
      [&] {
        crps.update(torch::zeros({4, 3}), torch::zeros({3}));
      },
      Throws<MetricError>("ContinuousRankedProbabilityScore", "[4, 3] and [3]"));
}

}  // namespace
}  // namespace fulgur::metrics
