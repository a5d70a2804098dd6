#include "fulgur/metrics/kendall_rank_corr_coef.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "fulgur/errors.h"

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

// Kendall's tau of variant "a", "b" or "c".
double tau(const std::vector<double>& x, const std::vector<double>& y, const std::string& variant) {
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
  if (variant == "a") return balance / static_cast<double>(pairs);
  if (variant == "b") {
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

}  // namespace

KendallRankCorrCoef::KendallRankCorrCoef(KendallRankCorrCoefOptions options)
    : RankCorrelation("KendallRankCorrCoef", options.num_outputs),
      variant_(std::move(options.variant)) {
  if (variant_ != "a" && variant_ != "b" && variant_ != "c") {
    throw ConfigError(fmt::format(
        "KendallRankCorrCoef(variant=\"{}\") is not valid; choose \"a\", \"b\" or \"c\"",
        variant_));
  }
}

at::Tensor KendallRankCorrCoef::coefficient(const at::Tensor& preds,
                                            const at::Tensor& target) const {
  return at::scalar_tensor(tau(host_values(preds), host_values(target), variant_),
                           at::TensorOptions().dtype(at::kDouble));
}

}  // namespace fulgur::metrics
