// The clustering metrics: the label metrics (mutual information and its normalized and adjusted
// forms, Rand and adjusted Rand, homogeneity, completeness, V-measure, Fowlkes-Mallows) and the
// data metrics (Calinski-Harabasz, Davies-Bouldin) against sklearn.metrics.cluster, DunnIndex
// against numpy; ClusterAccuracy and its assignment against scipy's linear_sum_assignment;
// torchmetrics' documented values; sklearn's special cases; the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/adjusted_mutual_info_score.h"
#include "fulgur/metrics/adjusted_rand_score.h"
#include "fulgur/metrics/calinski_harabasz_score.h"
#include "fulgur/metrics/cluster_accuracy.h"
#include "fulgur/metrics/completeness_score.h"
#include "fulgur/metrics/davies_bouldin_score.h"
#include "fulgur/metrics/dunn_index.h"
#include "fulgur/metrics/fowlkes_mallows_index.h"
#include "fulgur/metrics/homogeneity_score.h"
#include "fulgur/metrics/linear_assignment.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/mutual_info_score.h"
#include "fulgur/metrics/normalized_mutual_info_score.h"
#include "fulgur/metrics/rand_score.h"
#include "fulgur/metrics/v_measure_score.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

const std::vector<std::string> kAverageMethods{"min", "geometric", "arithmetic", "max"};

// Every label metric on (preds, target) fed in three batches, each with its sklearn reference
// on `t` (the true labels) and `p` (the predicted ones).
std::vector<Check> label_checks(const std::string& what, const at::Tensor& preds,
                                const at::Tensor& target) {
  std::vector<Check> checks;
  auto add = [&](const std::string& name, Metric&& metric, const std::string& python) {
    checks.push_back({what + " " + name, feed(metric, preds, target), python});
  };
  add("MI", MutualInfoScore(), "M.mutual_info_score(t, p)");
  for (const auto& method : kAverageMethods) {
    add("NMI " + method, NormalizedMutualInfoScore({.average_method = method}),
        "M.normalized_mutual_info_score(t, p, average_method='" + method + "')");
    add("AMI " + method, AdjustedMutualInfoScore({.average_method = method}),
        "M.adjusted_mutual_info_score(t, p, average_method='" + method + "')");
  }
  add("Rand", RandScore(), "M.rand_score(t, p)");
  add("ARI", AdjustedRandScore(), "M.adjusted_rand_score(t, p)");
  add("homogeneity", HomogeneityScore(), "M.homogeneity_score(t, p)");
  add("completeness", CompletenessScore(), "M.completeness_score(t, p)");
  add("V", VMeasureScore(), "M.v_measure_score(t, p)");
  add("V beta 2.5", VMeasureScore({.beta = 2.5}), "M.v_measure_score(t, p, beta=2.5)");
  add("FMI", FowlkesMallowsIndex(), "M.fowlkes_mallows_score(t, p)");
  return checks;
}

TEST(ClusterLabelMetrics, MatchSklearnOnRandomClusterings) {
  for (const int seed : {3, 17, 40}) {
    SCOPED_TRACE(seed);
    torch::manual_seed(seed);
    const int64_t n = 157;
    const auto target = torch::randint(0, 5, {n}, torch::kLong);
    // Mostly the target's clusters under other names (any integers), some samples moved, one
    // true cluster split in two.
    const auto names = torch::tensor({40, -3, 7, 1000, 12}, torch::kLong);
    auto preds = names.index_select(0, target);
    preds = torch::where(torch::rand({n}) < 0.3, torch::randint(-3, 4, {n}, torch::kLong), preds);
    preds = torch::where((target == 2) & (torch::rand({n}) < 0.5), torch::full({n}, 99L), preds);
    expect_reference("t = np.array(" + py(target) + ")\np = np.array(" + py(preds) + ")\n",
                     label_checks("random", preds, target), 1e-9);
  }
}

TEST(ClusterLabelMetrics, SpecialCasesAreSklearns) {
  const auto ones = torch::zeros({6}, torch::kLong);
  const auto each = torch::arange(6, torch::kLong);
  const auto halves = torch::tensor({0, 0, 0, 1, 1, 1}, torch::kLong);
  // Independent of halves' first four: every pair of clusters shares one sample.
  const auto crossed = torch::tensor({0, 1, 0, 1}, torch::kLong);
  const auto quarters = torch::tensor({0, 0, 1, 1}, torch::kLong);
  struct Case {
    std::string what;
    at::Tensor preds, target;
  };
  const std::vector<Case> cases{
      {"both one cluster", ones, ones + 5},
      {"preds one cluster", ones, halves},
      {"target one cluster", halves, ones},
      {"one sample per cluster", each, each * 3},
      {"no information in common", crossed, quarters},
      {"a single sample", torch::tensor({4}), torch::tensor({9})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string setup =
        "t = np.array(" + py(c.target) + ")\np = np.array(" + py(c.preds) + ")\n";
    expect_reference(setup, label_checks(c.what, c.preds, c.target), 1e-12);
  }
  // Independent clusterings of unequal sizes: the logarithms' rounding (about 1e-16) is no
  // information, exactly 0 as sklearn's. And torchmetrics returns 1 for the V-measure of zero
  // homogeneity and completeness; sklearn 0.
  const auto independent_preds = torch::tensor({0, 0, 1, 1, 1, 0, 0, 1, 1, 1}, torch::kLong);
  const auto independent_target = torch::tensor({0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, torch::kLong);
  MutualInfoScore mi;
  EXPECT_EQ(mi.forward(independent_preds, independent_target).item<double>(), 0.0);
  VMeasureScore v;
  EXPECT_EQ(v.forward(independent_preds, independent_target).item<double>(), 0.0);
  EXPECT_EQ(v.forward(crossed, quarters).item<double>(), 0.0);
}

TEST(ClusterLabelMetrics, TorchmetricsDocumentedValues) {
  const auto preds = torch::tensor({2, 1, 0, 1, 0}, torch::kLong);
  const auto target = torch::tensor({0, 2, 1, 1, 0}, torch::kLong);
  auto value = [&](Metric&& metric) { return metric.forward(preds, target).item<double>(); };
  EXPECT_NEAR(value(MutualInfoScore()), 0.5004, 5e-5);
  EXPECT_NEAR(value(NormalizedMutualInfoScore({.average_method = "arithmetic"})), 0.4744, 5e-5);
  EXPECT_NEAR(value(AdjustedMutualInfoScore()), -0.25, 5e-5);
  EXPECT_NEAR(value(HomogeneityScore()), 0.4744, 5e-5);
  EXPECT_NEAR(value(CompletenessScore()), 0.4744, 5e-5);
  EXPECT_NEAR(value(VMeasureScore()), 0.4744, 5e-5);
  EXPECT_NEAR(value(VMeasureScore({.beta = 2.0})), 0.4744, 5e-5);
  EXPECT_NEAR(value(RandScore()), 0.6, 1e-12);
  AdjustedRandScore ari;
  EXPECT_EQ(ari.forward(torch::tensor({0, 0, 1, 1}), torch::tensor({0, 0, 1, 1})).item<double>(),
            1.0);
  EXPECT_NEAR(ari.forward(torch::tensor({0, 0, 1, 1}), torch::tensor({0, 1, 0, 1})).item<double>(),
              -0.5, 1e-12);
  FowlkesMallowsIndex fmi;
  EXPECT_NEAR(
      fmi.forward(torch::tensor({2, 2, 0, 1, 0}), torch::tensor({2, 2, 1, 1, 0})).item<double>(),
      0.5, 1e-12);
  for (auto* metric : std::vector<Metric*>{&ari, &fmi}) {
    EXPECT_TRUE(metric->is_scalar());
    EXPECT_EQ(metric->higher_is_better(), true);
  }
}

TEST(ClusterLabelMetrics, ClustersSpanningBatchesAreOneCluster) {
  // The same clustering in one update or in one update per sample: one contingency matrix.
  const auto preds = torch::tensor({5, 5, 1, 1, 1, 8, 8, 5}, torch::kLong);
  const auto target = torch::tensor({0, 0, 1, 1, 2, 2, 2, 0}, torch::kLong);
  AdjustedMutualInfoScore whole, pieces;
  whole.update(preds, target);
  for (int64_t i = 0; i < preds.size(0); ++i) {
    pieces.update(preds.slice(0, i, i + 1), target.slice(0, i, i + 1));
  }
  EXPECT_DOUBLE_EQ(pieces.compute().item<double>(), whole.compute().item<double>());
  // bool and int32 labels are labels too.
  RandScore rand_bool, rand_long;
  rand_bool.update(preds == 5, (target == 0).to(torch::kInt));
  rand_long.update((preds == 5).to(torch::kLong), (target == 0).to(torch::kLong));
  EXPECT_EQ(rand_bool.compute().item<double>(), rand_long.compute().item<double>());
}

TEST(ClusterLabelMetrics, BadInputIsAClearError) {
  MutualInfoScore mi;
  EXPECT_THAT(
      [&] {
        mi.update(torch::tensor({0.0, 1.0}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("MutualInfoScore", "must be integers, got Float preds"));
  EXPECT_THAT(
      [&] {
        mi.update(torch::zeros({2, 2}, torch::kLong), torch::tensor({0, 1}));
      },
      Throws<MetricError>("MutualInfoScore", "1-D label tensors of one length"));
  EXPECT_THAT(
      [&] {
        mi.update(torch::tensor({0, 1, 1}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("MutualInfoScore", "shapes [3] and [2]"));
  EXPECT_THAT(
      [&] {
        mi.update(torch::tensor({0, 1}));
      },
      Throws<MetricError>("MutualInfoScore", "needs preds and target"));
  mi.update(torch::zeros({0}, torch::kLong), torch::zeros({0}, torch::kLong));
  EXPECT_THAT([&] { mi.compute(); }, Throws<MetricError>("MutualInfoScore", "no samples"));
  EXPECT_THAT([] { NormalizedMutualInfoScore({.average_method = "mean"}); },
              Throws<ConfigError>("average_method=\"mean\"", "\"geometric\", \"arithmetic\""));
  EXPECT_THAT([] { AdjustedMutualInfoScore({.average_method = "harmonic"}); },
              Throws<ConfigError>("AdjustedMutualInfoScore", "\"min\""));
  for (const double beta : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    EXPECT_THAT([&] { VMeasureScore({.beta = beta}); },
                Throws<ConfigError>("VMeasureScore(beta=", "positive number"));
  }
}

// Three blobs in 4-D under the labels 10, -3 and 7, some points in the wrong blob.
struct Blobs {
  at::Tensor data, labels;
};
Blobs blobs(int seed, int64_t n) {
  torch::manual_seed(seed);
  const auto which = torch::randint(0, 3, {n}, torch::kLong);
  const auto centres =
      torch::tensor({{0.0, 0.0, 0.0, 0.0}, {4.0, 1.0, -2.0, 0.5}, {-1.0, 3.0, 2.0, 5.0}});
  const auto data = centres.index_select(0, which) + torch::randn({n, 4}, torch::kDouble) * 1.3;
  auto labels = torch::tensor({10, -3, 7}, torch::kLong).index_select(0, which);
  labels = torch::where(torch::rand({n}) < 0.1, torch::full({n}, 7L), labels);
  return {data, labels};
}

const char* kDunn =
    "def dunn(X, y, p):\n"
    "    ks = np.unique(y)\n"
    "    c = np.array([X[y == k].mean(0) for k in ks])\n"
    "    between = min(np.linalg.norm(c[i] - c[j], ord=p) for i in range(len(ks)) for j in range(i "
    "+ 1, len(ks)))\n"
    "    within = max(np.linalg.norm(X[y == k] - c[i], ord=p, axis=1).max() for i, k in "
    "enumerate(ks))\n"
    "    return between / within\n";

TEST(ClusterDataMetrics, MatchSklearnAndNumpy) {
  for (const int seed : {5, 23}) {
    SCOPED_TRACE(seed);
    const auto [data, labels] = blobs(seed, 211);
    std::vector<Check> checks;
    CalinskiHarabaszScore ch;
    checks.push_back({"CH", feed(ch, data, labels), "M.calinski_harabasz_score(X, y)"});
    DaviesBouldinScore db;
    checks.push_back({"DB", feed(db, data, labels), "M.davies_bouldin_score(X, y)"});
    for (const double p : {1.0, 2.0, 3.5, std::numeric_limits<double>::infinity()}) {
      DunnIndex dunn({.p = p});
      checks.push_back(
          {"Dunn p=" + std::to_string(p), feed(dunn, data, labels),
           "dunn(X, y, " + (std::isinf(p) ? std::string("np.inf") : std::to_string(p)) + ")"});
    }
    // float32 data: kept as float64 from there on.
    CalinskiHarabaszScore ch32;
    checks.push_back({"CH float32", feed(ch32, data.to(torch::kFloat), labels),
                      "M.calinski_harabasz_score(X.astype(np.float32).astype(float), y)"});
    expect_reference(
        std::string(kDunn) + "X = np.array(" + py(data) + ")\ny = np.array(" + py(labels) + ")\n",
        checks, 1e-9);
  }
  EXPECT_EQ(CalinskiHarabaszScore().higher_is_better(), true);
  EXPECT_EQ(DaviesBouldinScore().higher_is_better(), false);
  EXPECT_EQ(DunnIndex().higher_is_better(), true);
}

TEST(ClusterDataMetrics, DocumentedAndSpecialValues) {
  DunnIndex dunn({.p = 2});
  EXPECT_DOUBLE_EQ(dunn.forward(torch::tensor({{0.0, 0.0}, {0.5, 0.0}, {1.0, 0.0}, {0.5, 1.0}}),
                                torch::tensor({0, 0, 0, 1}))
                       .item<double>(),
                   2.0);
  // Each cluster one point repeated: no dispersion within (CH 1, DB 0, as sklearn).
  const auto data = torch::tensor({{1.0, 2.0}, {1.0, 2.0}, {5.0, 0.0}, {5.0, 0.0}, {5.0, 0.0}});
  const auto labels = torch::tensor({0, 0, 1, 1, 1});
  std::vector<Check> checks;
  CalinskiHarabaszScore ch;
  checks.push_back({"CH", ch.forward(data, labels), "M.calinski_harabasz_score(X, y)"});
  DaviesBouldinScore db;
  checks.push_back({"DB", db.forward(data, labels), "M.davies_bouldin_score(X, y)"});
  // Two clusters around one centroid: the centroid distance is 0.
  const auto same_centre = torch::tensor({{-1.0, 0.0}, {1.0, 0.0}, {0.0, -2.0}, {0.0, 2.0}});
  const auto two = torch::tensor({0, 0, 1, 1});
  DaviesBouldinScore db_same;
  checks.push_back({"DB same centre", db_same.forward(same_centre, two),
                    "M.davies_bouldin_score(np.array(" + py(same_centre) + "), " + py(two) + ")"});
  expect_reference("X = np.array(" + py(data) + ")\ny = np.array(" + py(labels) + ")\n", checks,
                   1e-12);
  EXPECT_EQ(ch.forward_value().item<double>(), 1.0);
  EXPECT_EQ(db.forward_value().item<double>(), 0.0);
}

TEST(ClusterDataMetrics, BadInputIsAClearError) {
  const auto data = torch::randn({6, 3}, torch::kDouble);
  const auto labels = torch::tensor({0, 0, 1, 1, 2, 2});
  CalinskiHarabaszScore ch;
  EXPECT_THAT([&] { ch.update(data.to(torch::kLong), labels); },
              Throws<MetricError>("CalinskiHarabaszScore", "2-D float tensor"));
  EXPECT_THAT([&] { ch.update(data.select(1, 0), labels); },
              Throws<MetricError>("CalinskiHarabaszScore", "got a 1-D Double tensor"));
  EXPECT_THAT([&] { ch.update(data, labels.to(torch::kFloat)); },
              Throws<MetricError>("labels must be a 1-D integer tensor", "Float"));
  EXPECT_THAT([&] { ch.update(data.slice(0, 0, 5), labels); },
              Throws<MetricError>("data has 5 rows", "labels has 6"));
  EXPECT_THAT([&] { ch.update(data); }, Throws<MetricError>("CalinskiHarabaszScore", "needs data"));
  DaviesBouldinScore one_cluster;
  one_cluster.update(data, torch::zeros({6}, torch::kLong));
  EXPECT_THAT(
      [&] { one_cluster.compute(); },
      Throws<MetricError>("DaviesBouldinScore", "between 2 and samples - 1 clusters, got 1"));
  DunnIndex each_alone;
  each_alone.update(data, torch::arange(6));
  EXPECT_THAT([&] { each_alone.compute(); }, Throws<MetricError>("got 6 clusters", "of 6 samples"));
  DaviesBouldinScore widths;
  widths.update(data, labels);
  widths.update(torch::randn({2, 4}, torch::kDouble), torch::tensor({0, 1}));
  EXPECT_THAT([&] { widths.compute(); },
              Throws<MetricError>("changed width between updates", "3 and 4 features"));
  for (const double p : {0.5, 0.0, std::nan("")}) {
    EXPECT_THAT([&] { DunnIndex({.p = p}); }, Throws<ConfigError>("DunnIndex(p=", "at least 1"));
  }
}

TEST(LinearAssignment, FindsScipysBestTotal) {
  // Small integer weights make many ties: the columns may differ from scipy's, the total not.
  torch::manual_seed(8);
  std::vector<Check> checks;
  std::string setup =
      "from scipy.optimize import linear_sum_assignment\n"
      "def best(w):\n"
      "    w = np.array(w, dtype=float).reshape(len(w), -1)\n"
      "    r, c = linear_sum_assignment(w, maximize=True)\n"
      "    return w[r, c].sum()\n";
  for (int64_t n = 1; n <= 9; ++n) {
    for (const int64_t range : {3, 1000}) {
      const auto weights = torch::randint(0, range, {n, n}, torch::kLong).to(torch::kDouble);
      const auto columns = max_weight_assignment(weights);
      ASSERT_EQ(columns.size(), static_cast<size_t>(n));
      // A permutation: every column once.
      auto sorted = columns;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t j = 0; j < n; ++j) EXPECT_EQ(sorted[j], j);
      double total = 0;
      for (int64_t i = 0; i < n; ++i) total += weights[i][columns[i]].item<double>();
      checks.push_back({"n=" + std::to_string(n) + " range " + std::to_string(range),
                        torch::tensor(total, torch::kDouble), "best(" + py(weights) + ")"});
    }
  }
  expect_reference(setup, checks, 1e-9);
}

TEST(ClusterAccuracy, MatchesScipyAssignmentOfTheConfusionMatrix) {
  torch::manual_seed(12);
  const int64_t n = 301, c = 6;
  const auto target = torch::randint(0, c, {n}, torch::kLong);
  // The classes renamed by a permutation, a quarter of the samples moved anywhere.
  const auto renamed = torch::tensor({3, 5, 0, 1, 4, 2}, torch::kLong).index_select(0, target);
  const auto preds =
      torch::where(torch::rand({n}) < 0.25, torch::randint(0, c, {n}, torch::kLong), renamed);
  ClusterAccuracy accuracy({.num_classes = c});
  EXPECT_EQ(accuracy.higher_is_better(), true);
  const auto value = feed(accuracy, preds, target);
  expect_reference(
      "from scipy.optimize import linear_sum_assignment\n"
      "t = np.array(" +
          py(target) + ")\np = np.array(" + py(preds) +
          ")\n"
          "m = np.zeros((6, 6))\nnp.add.at(m, (t, p), 1)\n"
          "r, k = linear_sum_assignment(m, maximize=True)\n",
      {{"ClusterAccuracy", value, "m[r, k].sum() / len(t)"}}, 1e-12);
  // Above the plain accuracy of the unrenamed ids.
  EXPECT_GT(value.item<double>(), preds.eq(target).to(torch::kDouble).mean().item<double>());
  // torchmetrics' example: a perfect clustering under swapped names.
  ClusterAccuracy swapped({.num_classes = 2});
  EXPECT_EQ(
      swapped.forward(torch::tensor({0, 0, 1, 1}), torch::tensor({1, 1, 0, 0})).item<double>(),
      1.0);
}

TEST(ClusterAccuracy, BadInputIsAClearError) {
  EXPECT_THAT([] { ClusterAccuracy({.num_classes = 0}); },
              Throws<ConfigError>("ClusterAccuracy(num_classes=0)", "positive integer"));
  ClusterAccuracy accuracy({.num_classes = 3});
  EXPECT_THAT(
      [&] {
        accuracy.update(torch::tensor({0, 3}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("ClusterAccuracy", "preds hold labels outside [0, 3)"));
  EXPECT_THAT(
      [&] {
        accuracy.update(torch::tensor({0, 1}), torch::tensor({-1, 1}));
      },
      Throws<MetricError>("ClusterAccuracy", "target holds labels outside [0, 3)"));
  EXPECT_THAT(
      [&] {
        accuracy.update(torch::tensor({0.5, 1.0}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("ClusterAccuracy", "must be integers"));
  accuracy.update(torch::zeros({0}, torch::kLong), torch::zeros({0}, torch::kLong));
  EXPECT_THAT([&] { accuracy.compute(); }, Throws<MetricError>("ClusterAccuracy", "no samples"));
}

}  // namespace
}  // namespace fulgur::metrics
