#pragma once
// The reference checks AUROC and AveragePrecision share: sklearn's `score` function (called as
// M.<score>(y_true, y_score[, average=...])) on the same data as the metric, fed in uneven
// batches: binary scores with many ties (tied scores are one point of the curve) and logits;
// multiclass one-vs-rest (targets one-hot) from probabilities, from logits (a softmax first,
// as torchmetrics) and from tied probabilities, for each average.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/metrics/curve_metric.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::testing {

using MakeCurveMetric = std::function<std::unique_ptr<metrics::Metric>(metrics::CurveOptions)>;

inline void expect_binary_matches_sklearn(const MakeCurveMetric& make, const std::string& score,
                                          std::initializer_list<int> seeds) {
  std::vector<Check> checks;
  std::string setup;
  for (int seed : seeds) {
    torch::manual_seed(seed);
    const int64_t n = 301;
    // Scores rounded to one decimal: many ties, some across classes.
    const auto tied = (torch::rand({n}, torch::kDouble) * 10).round() / 10;
    const auto logits = torch::randn({n}, torch::kDouble) * 2;
    const auto target = torch::randint(0, 2, {n}, torch::kLong);
    auto a = make({.task = "binary"}), b = make({.task = "binary"});
    setup += fmt::format("t{0} = np.array({1})\nl{0} = np.array({2})\ny{0} = np.array({3})\n", seed,
                         py(tied), py(logits), py(target));
    checks.push_back({fmt::format("seed {} tied", seed), feed(*a, tied, target),
                      fmt::format("M.{}(y{}, t{})", score, seed, seed)});
    checks.push_back({fmt::format("seed {} logits", seed), feed(*b, logits, target),
                      fmt::format("M.{}(y{}, l{})", score, seed, seed)});
  }
  expect_reference(setup, checks);
}

inline void expect_one_vs_rest_matches_sklearn(const MakeCurveMetric& make,
                                               const std::string& score,
                                               std::initializer_list<int> seeds) {
  for (int seed : seeds) {
    torch::manual_seed(seed);
    const int64_t n = 240, c = 4;
    const auto logits = torch::randn({n, c}, torch::kDouble);
    const auto probs = logits.softmax(1);
    // Rounded probabilities give ties within a class column.
    const auto tied = (probs * 20).round() / 20;
    const auto target = torch::randint(0, c, {n}, torch::kLong);
    std::vector<Check> checks;
    for (const std::string average : {"macro", "weighted", "none"}) {
      const metrics::CurveOptions options{
          .task = "multiclass", .num_classes = c, .average = average};
      auto from_probs = make(options), from_logits = make(options), from_tied = make(options);
      EXPECT_EQ(from_probs->is_scalar(), average != "none");
      const auto reference = [&](const std::string& scores) {
        return fmt::format("M.{}(np.eye(C)[y], {}, average={})", score, scores,
                           average == "none" ? "None" : "'" + average + "'");
      };
      checks.push_back({"probs " + average, feed(*from_probs, probs, target), reference("probs")});
      checks.push_back(
          {"logits " + average, feed(*from_logits, logits, target), reference("probs")});
      checks.push_back({"tied " + average, feed(*from_tied, tied, target), reference("tied")});
    }
    expect_reference(fmt::format("C = {}\nprobs = np.array({})\ntied = np.array({})\n"
                                 "y = np.array({})\n",
                                 c, py(probs), py(tied), py(target)),
                     checks);
  }
}

}  // namespace fulgur::testing
