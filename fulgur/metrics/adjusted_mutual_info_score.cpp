#include "fulgur/metrics/adjusted_mutual_info_score.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

namespace {

// E[MI] when each sample's cluster on both sides is drawn at random keeping the cluster sizes
// a (rows) and b (columns): every pair of clusters shares nij samples with the hypergeometric
// probability of that, and contributes nij / n * log(n * nij / (a * b)).
double expected_mutual_information(const at::Tensor& contingency) {
  // A single cluster on either side shares nothing with anything, by chance or not.
  if (contingency.size(0) == 1 || contingency.size(1) == 1) return 0.0;
  const auto cpu = contingency.to(at::kCPU);
  const auto a_sizes = cpu.sum(1).contiguous(), b_sizes = cpu.sum(0).contiguous();
  const std::vector<double> a(a_sizes.data_ptr<double>(),
                              a_sizes.data_ptr<double>() + a_sizes.numel());
  const std::vector<double> b(b_sizes.data_ptr<double>(),
                              b_sizes.data_ptr<double>() + b_sizes.numel());
  const double n = cpu.sum().item<double>();
  const double log_n = std::log(n), lgamma_n = std::lgamma(n + 1);
  double expected = 0;
  for (const double ai : a) {
    for (const double bj : b) {
      // log of the terms of the probability that do not depend on nij.
      const double fixed = std::lgamma(ai + 1) + std::lgamma(bj + 1) + std::lgamma(n - ai + 1) +
                           std::lgamma(n - bj + 1) - lgamma_n;
      for (double nij = std::max(1.0, ai + bj - n); nij <= std::min(ai, bj); ++nij) {
        const double log_probability = fixed - std::lgamma(nij + 1) - std::lgamma(ai - nij + 1) -
                                       std::lgamma(bj - nij + 1) -
                                       std::lgamma(n - ai - bj + nij + 1);
        expected += nij / n * (log_n + std::log(nij) - std::log(ai) - std::log(bj)) *
                    std::exp(log_probability);
      }
    }
  }
  return expected;
}

}  // namespace

AdjustedMutualInfoScore::AdjustedMutualInfoScore(AdjustedMutualInfoScoreOptions options)
    : ClusterLabelMetric("AdjustedMutualInfoScore"), options_(std::move(options)) {
  check_average_method(name(), options_.average_method);
}

double AdjustedMutualInfoScore::score(const at::Tensor& contingency) const {
  if (contingency.size(0) == 1 && contingency.size(1) == 1) return 1.0;
  const double information = mutual_information(contingency);
  const double expected = expected_mutual_information(contingency);
  const double normalizer =
      generalized_mean(cluster_entropy(contingency.sum(1)), cluster_entropy(contingency.sum(0)),
                       options_.average_method);
  // The normalizer is never below the expectation but for rounding: keep the sign, avoid 0.
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  const double denominator = normalizer - expected < 0 ? std::min(normalizer - expected, -kEpsilon)
                                                       : std::max(normalizer - expected, kEpsilon);
  return (information - expected) / denominator;
}

}  // namespace fulgur::metrics
