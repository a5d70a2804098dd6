// The nominal association metrics (CramersV, TschuprowsT, PearsonsContingencyCoefficient,
// TheilsU) against scipy.stats.contingency.association, Bergsma's correction written in numpy on
// scipy's chi2_contingency, and sklearn's completeness (Theil's U); NaN handling, scores, and
// the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/cramers_v.h"
#include "fulgur/metrics/fleiss_kappa.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/pearsons_contingency_coefficient.h"
#include "fulgur/metrics/theils_u.h"
#include "fulgur/metrics/tschuprows_t.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

// The table of t (rows) against p (columns) without empty rows and columns, and Bergsma's
// bias-corrected Cramer's V and Tschuprow's T on it.
const char* kNominal =
    "from scipy.stats import chi2_contingency\n"
    "from scipy.stats.contingency import association\n"
    "def table(t, p, k):\n"
    "    m = np.zeros((k, k), dtype=np.int64)\n"
    "    np.add.at(m, (t, p), 1)\n"
    "    return m[m.sum(1) > 0][:, m.sum(0) > 0]\n"
    "def corrected(m, kind):\n"
    "    n = m.sum()\n"
    "    r, c = m.shape\n"
    "    phi2 = chi2_contingency(m, correction=True)[0] / n\n"
    "    phi2 = max(0.0, phi2 - (r - 1) * (c - 1) / (n - 1))\n"
    "    rc, cc = r - (r - 1) ** 2 / (n - 1), c - (c - 1) ** 2 / (n - 1)\n"
    "    if kind == 'cramer':\n"
    "        return np.sqrt(phi2 / min(rc - 1, cc - 1))\n"
    "    return np.sqrt(phi2 / np.sqrt((rc - 1) * (cc - 1)))\n";

std::vector<Check> nominal_checks(const std::string& what, const at::Tensor& preds,
                                  const at::Tensor& target, int64_t k) {
  std::vector<Check> checks;
  auto add = [&](const std::string& name, Metric&& metric, const std::string& python) {
    checks.push_back({what + " " + name, feed(metric, preds, target), python});
  };
  add("Cramer", CramersV({.num_classes = k, .bias_correction = false}),
      "association(m, method='cramer', correction=False)");
  add("Cramer corrected", CramersV({.num_classes = k}), "corrected(m, 'cramer')");
  add("Tschuprow", TschuprowsT({.num_classes = k, .bias_correction = false}),
      "association(m, method='tschuprow', correction=False)");
  add("Tschuprow corrected", TschuprowsT({.num_classes = k}), "corrected(m, 'tschuprow')");
  add("Pearson", PearsonsContingencyCoefficient({.num_classes = k}),
      "association(m, method='pearson', correction=False)");
  // U(preds | target) = I(preds; target) / H(preds): sklearn's completeness of preds.
  add("Theil", TheilsU({.num_classes = k}), "M.completeness_score(t, p)");
  return checks;
}

TEST(NominalAssociation, MatchesScipy) {
  for (const int seed : {2, 19}) {
    SCOPED_TRACE(seed);
    torch::manual_seed(seed);
    const int64_t n = 240, k = 7;  // classes 5 and 6 never occur: left out of the table
    const auto preds = torch::randint(0, 4, {n}, torch::kLong);
    const auto target = (preds.to(torch::kDouble) + torch::randn({n}, torch::kDouble))
                            .round()
                            .clamp(0, 4)
                            .to(torch::kLong);
    expect_reference(std::string(kNominal) + "t = np.array(" + py(target) + ")\np = np.array(" +
                         py(preds) + ")\nm = table(t, p, 7)\n",
                     nominal_checks("random", preds, target, k), 1e-9);
  }
  // Two binary variables: a 2x2 table, where the corrected forms take Yates' correction.
  torch::manual_seed(4);
  const auto preds = torch::randint(0, 2, {90}, torch::kLong);
  const auto target = torch::where(torch::rand({90}) < 0.7, preds, 1 - preds);
  expect_reference(std::string(kNominal) + "t = np.array(" + py(target) + ")\np = np.array(" +
                       py(preds) + ")\nm = table(t, p, 2)\n",
                   nominal_checks("2x2", preds, target, 2), 1e-9);
}

TEST(NominalAssociation, ScoresNaNsAndSymmetry) {
  torch::manual_seed(9);
  const int64_t n = 120, k = 4;
  const auto preds = torch::randint(0, k, {n}, torch::kLong);
  const auto target = torch::where(torch::rand({n}) < 0.6, preds, torch::randint(0, k, {n}));
  CramersV labels({.num_classes = k});
  const double expected = feed(labels, preds, target).item<double>();
  // [N, C] scores stand for their argmax.
  CramersV scores({.num_classes = k});
  const auto one_hot = torch::one_hot(preds, k).to(torch::kDouble) + 0.1;
  EXPECT_DOUBLE_EQ(feed(scores, one_hot, target).item<double>(), expected);
  // NaN labels replaced by a class, or their samples dropped.
  const auto missing = torch::rand({n}) < 0.2;
  const auto with_nan = preds.to(torch::kDouble).masked_fill(missing, NAN);
  CramersV replaced({.num_classes = k, .nan_replace_value = 3.0});
  CramersV replaced_by_hand({.num_classes = k});
  EXPECT_DOUBLE_EQ(feed(replaced, with_nan, target).item<double>(),
                   feed(replaced_by_hand, preds.masked_fill(missing, 3), target).item<double>());
  CramersV dropped({.num_classes = k, .nan_strategy = "drop"});
  CramersV kept_only({.num_classes = k});
  const auto keep = ~missing;
  EXPECT_DOUBLE_EQ(
      feed(dropped, with_nan, target.to(torch::kDouble)).item<double>(),
      feed(kept_only, preds.masked_select(keep), target.masked_select(keep)).item<double>());
  // Cramer's V is symmetric, Theil's U is not.
  CramersV swapped({.num_classes = k});
  EXPECT_NEAR(feed(swapped, target, preds).item<double>(), expected, 1e-12);
  TheilsU u({.num_classes = k}), u_swapped({.num_classes = k});
  const auto skewed = preds.clamp_max(1);
  EXPECT_GT(std::abs(feed(u, skewed, target).item<double>() -
                     feed(u_swapped, target, skewed).item<double>()),
            0.05);
  for (const auto* metric : std::vector<const Metric*>{&labels, &u}) {
    EXPECT_EQ(metric->higher_is_better(), true);
    EXPECT_TRUE(metric->is_scalar());
  }
}

TEST(NominalAssociation, DegenerateTables) {
  const auto preds = torch::tensor({0, 1, 2, 1, 0, 2}, torch::kLong);
  const auto same = torch::zeros({6}, torch::kLong);
  // One target class: the bias correction has nothing to correct (NaN and a warning).
  CramersV corrected({.num_classes = 3});
  ::testing::internal::CaptureStderr();
  const double value = corrected.forward(preds, same).item<double>();
  const auto warned = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::isnan(value));
  EXPECT_THAT(warned, ::testing::HasSubstr("CramersV: the bias correction needs two classes"));
  // Theil's U of a single predicted class is 0 (torchmetrics), Pearson's coefficient 0.
  TheilsU u({.num_classes = 3});
  EXPECT_EQ(u.forward(same, preds).item<double>(), 0.0);
  PearsonsContingencyCoefficient pearson({.num_classes = 3});
  EXPECT_EQ(pearson.forward(preds, same).item<double>(), 0.0);
  // A perfect association: V, T and U 1.
  TschuprowsT t({.num_classes = 3, .bias_correction = false});
  EXPECT_NEAR(t.forward(preds, (preds + 1) % 3).item<double>(), 1.0, 1e-12);
  EXPECT_NEAR(u.forward(preds, (preds + 1) % 3).item<double>(), 1.0, 1e-12);
}

TEST(NominalAssociation, BadInputIsAClearError) {
  EXPECT_THAT([] { CramersV({.num_classes = 0}); },
              Throws<ConfigError>("CramersV(num_classes=0)", "positive integer"));
  EXPECT_THAT([] { TheilsU({.num_classes = 3, .nan_strategy = "mean"}); },
              Throws<ConfigError>("TheilsU(nan_strategy=\"mean\")", "\"replace\" or \"drop\""));
  TschuprowsT t({.num_classes = 3});
  EXPECT_THAT(
      [&] {
        t.update(torch::tensor({0, 3}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("TschuprowsT",
                          "preds holds labels that are not whole numbers in "
                          "[0, 3)"));
  EXPECT_THAT(
      [&] {
        t.update(torch::tensor({0, 1}), torch::tensor({0.0, 1.5}));
      },
      Throws<MetricError>("TschuprowsT", "target holds labels"));
  EXPECT_THAT(
      [&] {
        t.update(torch::tensor({0, 1, 2}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("TschuprowsT", "shapes [3] and [2]"));
  EXPECT_THAT(
      [&] {
        t.update(torch::tensor({0, 1}));
      },
      Throws<MetricError>("TschuprowsT", "needs preds and target"));
  t.update(torch::zeros({0}, torch::kLong), torch::zeros({0}, torch::kLong));
  EXPECT_THAT([&] { t.compute(); }, Throws<MetricError>("TschuprowsT", "no samples"));
}

// Fleiss' kappa from counts [samples, categories], with torchmetrics' 1e-5 in the denominator.
const char* kFleiss =
    "def fleiss(c):\n"
    "    n = c.sum(1).max()\n"
    "    shares = c.sum(0) / (len(c) * n)\n"
    "    agreement = (((c ** 2).sum(1) - n) / (n * (n - 1))).mean()\n"
    "    chance = (shares ** 2).sum()\n"
    "    return (agreement - chance) / (1 - chance + 1e-5)\n";

TEST(FleissKappa, MatchesNumpyFromCountsAndProbabilities) {
  torch::manual_seed(16);
  // 31 samples, 4 categories, 9 raters who lean towards category 2.
  const auto votes = torch::multinomial(torch::tensor({0.2, 0.2, 0.5, 0.1}), 31 * 9, true);
  const auto chosen = votes.reshape({31, 9});
  const auto counts = torch::one_hot(chosen, 4).sum(1);
  // Probabilities whose argmax over the categories is each rater's choice.
  const auto probs =
      (torch::one_hot(chosen, 4).to(torch::kDouble) * 3 + torch::rand({31, 9, 4}, torch::kDouble))
          .softmax(2)
          .permute({0, 2, 1});
  FleissKappa from_counts;
  FleissKappa from_probs({.mode = "probs"});
  for (const auto& [a, b] : std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {10, 13}, {13, 31}}) {
    from_counts.update(counts.slice(0, a, b));
    from_probs.update(probs.slice(0, a, b));
  }
  expect_reference(std::string(kFleiss) + "C = np.array(" + py(counts) + ", dtype=float)\n",
                   {{"counts", from_counts.compute(), "fleiss(C)"},
                    {"probs", from_probs.compute(), "fleiss(C)"}},
                   1e-12);
  EXPECT_EQ(from_counts.higher_is_better(), true);

  // torchmetrics' documented values: seeded with 42, 100 samples of 10 raters over 5 categories.
  torch::manual_seed(42);
  const auto ratings = torch::randint(0, 10, {100, 5}, torch::kLong);
  FleissKappa documented;
  EXPECT_NEAR(documented.forward(ratings).item<double>(), 0.0089, 5e-5);
  FleissKappa documented_probs({.mode = "probs"});
  EXPECT_NEAR(documented_probs.forward(torch::randn({100, 5, 10}).softmax(1)).item<double>(),
              -0.0075, 5e-5);
  // Raters who always agree: 1, less what the 1e-5 takes off.
  FleissKappa agreed;
  const auto unanimous = torch::tensor({{3, 0}, {0, 3}, {3, 0}}, torch::kLong);
  EXPECT_NEAR(agreed.forward(unanimous).item<double>(), 1.0, 3e-5);
  EXPECT_LT(agreed.compute().item<double>(), 1.0);
}

TEST(FleissKappa, BadInputIsAClearError) {
  EXPECT_THAT([] { FleissKappa({.mode = "prob"}); },
              Throws<ConfigError>("FleissKappa(mode=\"prob\")", "\"counts\" or \"probs\""));
  FleissKappa counts;
  EXPECT_THAT(
      [&] {
        counts.update(torch::rand({4, 3}));
      },
      Throws<MetricError>("mode \"counts\", ratings must be integer counts", "[4, 3]"));
  EXPECT_THAT(
      [&] {
        counts.update(torch::ones({4, 3}, torch::kLong), torch::ones({4}));
      },
      Throws<MetricError>("FleissKappa", "takes the ratings alone"));
  FleissKappa probs({.mode = "probs"});
  EXPECT_THAT(
      [&] {
        probs.update(torch::ones({4, 3}, torch::kLong));
      },
      Throws<MetricError>("mode \"probs\", ratings must be floating", "[4, 3]"));
  counts.update(torch::ones({4, 3}, torch::kLong));
  counts.update(torch::ones({4, 2}, torch::kLong));
  EXPECT_THAT([&] { counts.compute(); },
              Throws<MetricError>("same number of categories", "saw 3 and 2"));
  FleissKappa lonely;
  lonely.update(torch::tensor({{1, 0}, {0, 1}}, torch::kLong));
  EXPECT_THAT([&] { lonely.compute(); }, Throws<MetricError>("FleissKappa", "at least two raters"));
}

}  // namespace
}  // namespace fulgur::metrics
