#include "fulgur/metrics/clustering_inputs.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {
namespace {

bool is_label_tensor(const at::Tensor& t) {
  return !at::isFloatingType(t.scalar_type()) && !at::isComplexType(t.scalar_type());
}

}  // namespace

void check_cluster_labels(const std::string& metric, const at::Tensor& preds,
                          const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) {
    throw MetricError(fmt::format("{}: update() needs preds and target cluster labels", metric));
  }
  if (preds.dim() != 1 || target.dim() != 1 || preds.size(0) != target.size(0)) {
    throw MetricError(fmt::format(
        "{}: preds and target must be 1-D label tensors of one length, got shapes [{}] and [{}]",
        metric, fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  if (!is_label_tensor(preds) || !is_label_tensor(target)) {
    throw MetricError(fmt::format("{}: cluster labels must be integers, got {} preds and {} target",
                                  metric, c10::toString(preds.scalar_type()),
                                  c10::toString(target.scalar_type())));
  }
}

at::Tensor contingency_matrix(const at::Tensor& preds, const at::Tensor& target) {
  const auto [pred_labels, pred_index, pred_counts] =
      at::_unique2(preds, /*sorted=*/true, /*return_inverse=*/true);
  const auto [target_labels, target_index, target_counts] =
      at::_unique2(target, /*sorted=*/true, /*return_inverse=*/true);
  const int64_t columns = pred_labels.numel(), rows = target_labels.numel();
  const auto cell = target_index.reshape({-1}) * columns + pred_index.reshape({-1});
  return at::bincount(cell, {}, rows * columns).reshape({rows, columns}).to(at::kDouble);
}

double cluster_entropy(const at::Tensor& sizes) {
  const auto p = sizes.to(at::kDouble);
  const auto nonzero = p.masked_select(p > 0);
  if (nonzero.numel() <= 1) return 0.0;
  const auto n = nonzero.sum();
  // log(p) - log(n) rather than log(p / n): sklearn's form, for the same rounding.
  return -(nonzero / n * (nonzero.log() - n.log())).sum().item<double>();
}

double mutual_information(const at::Tensor& contingency) {
  if (contingency.size(0) <= 1 || contingency.size(1) <= 1) return 0.0;
  const auto n = contingency.sum();
  const auto rows = contingency.sum(1), columns = contingency.sum(0);
  const auto nonzero = contingency.nonzero();
  const auto i = nonzero.select(1, 0), j = nonzero.select(1, 1);
  const auto c = contingency.index({i, j});
  auto terms = c / n * (c.log() + n.log() - rows.index({i}).log() - columns.index({j}).log());
  // Terms that are rounding (independent clusterings give log(n c / (a b)) = 0) count as 0, as
  // sklearn's: no information stays exactly 0.
  terms = terms.masked_fill(terms.abs() < std::numeric_limits<double>::epsilon(), 0.0);
  return std::max(0.0, terms.sum().item<double>());
}

HomogeneityCompleteness homogeneity_completeness(const at::Tensor& contingency) {
  const double information = mutual_information(contingency);
  const double target_entropy = cluster_entropy(contingency.sum(1));
  const double preds_entropy = cluster_entropy(contingency.sum(0));
  return {target_entropy > 0 ? information / target_entropy : 1.0,
          preds_entropy > 0 ? information / preds_entropy : 1.0};
}

PairCounts pair_counts(const at::Tensor& contingency) {
  const double n = contingency.sum().item<double>();
  const double squares = contingency.pow(2).sum().item<double>();
  const double preds_pairs = contingency.sum(0).pow(2).sum().item<double>();
  const double target_pairs = contingency.sum(1).pow(2).sum().item<double>();
  PairCounts counts{};
  counts.together_in_both = squares - n;
  counts.together_in_preds_only = preds_pairs - squares;
  counts.together_in_target_only = target_pairs - squares;
  counts.apart_in_both =
      n * n - counts.together_in_preds_only - counts.together_in_target_only - squares;
  return counts;
}

void check_average_method(const std::string& metric, const std::string& method) {
  if (method != "min" && method != "geometric" && method != "arithmetic" && method != "max") {
    throw ConfigError(fmt::format(
        "{}(average_method=\"{}\") is not valid; choose \"min\", \"geometric\", \"arithmetic\" "
        "or \"max\"",
        metric, method));
  }
}

double generalized_mean(double a, double b, const std::string& method) {
  if (method == "min") return std::min(a, b);
  if (method == "geometric") return std::sqrt(a * b);
  if (method == "max") return std::max(a, b);
  return (a + b) / 2;
}

}  // namespace fulgur::metrics
