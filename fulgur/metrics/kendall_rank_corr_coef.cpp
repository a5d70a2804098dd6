#include "fulgur/metrics/kendall_rank_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

namespace {

// The pairs tied within runs of equal neighbours of a sorted sequence (a run of t: t(t-1)/2),
// and the number of runs (distinct values).
template <typename Equal>
std::pair<int64_t, int64_t> tied_pairs(size_t n, Equal equal) {
  int64_t pairs = 0, runs = 0;
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && equal(start, end)) ++end;
    const auto t = static_cast<int64_t>(end - start);
    pairs += t * (t - 1) / 2;
    ++runs;
    start = end;
  }
  return {pairs, runs};
}

// Sorts `v` and returns how many pairs i < j had v[i] > v[j] (strictly).
int64_t sort_counting_inversions(std::vector<double>& v, std::vector<double>& buffer, size_t from,
                                 size_t to) {
  if (to - from < 2) return 0;
  const size_t middle = from + (to - from) / 2;
  int64_t inversions = sort_counting_inversions(v, buffer, from, middle) +
                       sort_counting_inversions(v, buffer, middle, to);
  size_t left = from, right = middle, out = from;
  while (left < middle && right < to) {
    if (v[right] < v[left]) {
      inversions += static_cast<int64_t>(middle - left);  // right jumps every left one still out
      buffer[out++] = v[right++];
    } else {
      buffer[out++] = v[left++];
    }
  }
  while (left < middle) buffer[out++] = v[left++];
  while (right < to) buffer[out++] = v[right++];
  std::copy(buffer.begin() + static_cast<std::ptrdiff_t>(from),
            buffer.begin() + static_cast<std::ptrdiff_t>(to),
            v.begin() + static_cast<std::ptrdiff_t>(from));
  return inversions;
}

std::vector<double> host_values(const at::Tensor& column) {
  const auto c = column.to(at::kCPU, at::kDouble).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

}  // namespace

KendallRankCorrCoef::KendallRankCorrCoef(KendallRankCorrCoefOptions options)
    : Metric("KendallRankCorrCoef"), options_(std::move(options)) {
  if (options_.variant != "a" && options_.variant != "b" && options_.variant != "c") {
    throw ConfigError(fmt::format(
        "KendallRankCorrCoef(variant=\"{}\") is not valid; choose \"a\", \"b\" or \"c\"",
        options_.variant));
  }
  check_num_outputs(name(), options_.num_outputs);
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  const auto empty = options_.num_outputs == 1 ? at::zeros({0}, doubles)
                                               : at::zeros({0, options_.num_outputs}, doubles);
  preds_ = add_state("preds", empty, Reduction::Cat);
  target_ = add_state("target", empty, Reduction::Cat);
}

void KendallRankCorrCoef::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, options_.num_outputs);
  const bool one = options_.num_outputs == 1;
  append(preds_, one ? p.reshape({-1}) : p);
  append(target_, one ? t.reshape({-1}) : t);
}

double KendallRankCorrCoef::tau(const at::Tensor& x_column, const at::Tensor& y_column) const {
  const auto x = host_values(x_column), y = host_values(y_column);
  const size_t n = x.size();
  // In the order of (x, y), a discordant pair is one whose y falls: an inversion of y.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]); });
  std::vector<double> ys(n), buffer(n);
  for (size_t k = 0; k < n; ++k) ys[k] = y[order[k]];
  const auto [x_ties, x_classes] =
      tied_pairs(n, [&](size_t a, size_t b) { return x[order[a]] == x[order[b]]; });
  const int64_t joint_ties = tied_pairs(n, [&](size_t a, size_t b) {
                               return x[order[a]] == x[order[b]] && ys[a] == ys[b];
                             }).first;
  const int64_t discordant = sort_counting_inversions(ys, buffer, 0, n);
  const auto [y_ties, y_classes] =
      tied_pairs(n, [&](size_t a, size_t b) { return ys[a] == ys[b]; });
  const auto count = static_cast<int64_t>(n);
  const int64_t pairs = count * (count - 1) / 2;
  const auto balance = static_cast<double>(pairs - x_ties - y_ties + joint_ties - 2 * discordant);
  if (options_.variant == "a") return balance / static_cast<double>(pairs);
  if (options_.variant == "b") {
    const double x_pairs = static_cast<double>(pairs - x_ties);
    const double y_pairs = static_cast<double>(pairs - y_ties);
    if (x_pairs == 0 || y_pairs == 0) return std::numeric_limits<double>::quiet_NaN();
    return balance / std::sqrt(x_pairs * y_pairs);
  }
  const auto classes = static_cast<double>(std::min(x_classes, y_classes));
  if (classes < 2) return std::numeric_limits<double>::quiet_NaN();
  const auto size = static_cast<double>(n);
  return 2 * balance / (size * size * (classes - 1) / classes);
}

at::Tensor KendallRankCorrCoef::compute_value() {
  const int64_t outputs = options_.num_outputs;
  const auto p = cat_state(preds_).reshape({-1, outputs});
  const auto t = cat_state(target_).reshape({-1, outputs});
  if (p.size(0) < 2) fail(fmt::format("needs at least 2 samples to score, got {}", p.size(0)));
  std::vector<double> taus;
  for (int64_t o = 0; o < outputs; ++o) taus.push_back(tau(p.select(1, o), t.select(1, o)));
  // Rounding can carry a perfect agreement a hair past 1; scipy clips too.
  const auto value =
      at::tensor(taus, at::TensorOptions().dtype(at::kDouble)).clamp(-1, 1).to(p.device());
  return outputs == 1 ? value.squeeze(0) : value;
}

}  // namespace fulgur::metrics
