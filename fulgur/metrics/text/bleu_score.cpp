#include "fulgur/metrics/text/bleu_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "fulgur/errors.h"
#include "fulgur/metrics/text/text_inputs.h"

namespace fulgur::metrics {
namespace {

using Words = std::vector<std::u32string>;
using NGramCounts = std::map<Words, int64_t>;

// Every n-gram of orders 1 to n_gram, with its count.
NGramCounts count_ngrams(const Words& words, int64_t n_gram) {
  NGramCounts counts;
  for (int64_t n = 1; n <= n_gram; ++n) {
    for (int64_t start = 0; start + n <= static_cast<int64_t>(words.size()); ++start) {
      ++counts[Words(words.begin() + start, words.begin() + start + n)];
    }
  }
  return counts;
}

}  // namespace

BLEUScore::BLEUScore(BLEUScoreOptions options)
    : Metric("BLEUScore"),
      n_gram_(options.n_gram),
      smooth_(options.smooth),
      weights_(std::move(options.weights)) {
  if (n_gram_ < 1) {
    throw ConfigError(fmt::format("BLEUScore: n_gram must be 1 or more, not {}", n_gram_));
  }
  if (weights_.empty()) weights_.assign(n_gram_, 1.0 / static_cast<double>(n_gram_));
  if (static_cast<int64_t>(weights_.size()) != n_gram_) {
    throw ConfigError(fmt::format("BLEUScore: {} weights for n_gram = {}; give one per order",
                                  weights_.size(), n_gram_));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  preds_len_ = add_state("preds_len", at::zeros({}, doubles), Reduction::Sum);
  target_len_ = add_state("target_len", at::zeros({}, doubles), Reduction::Sum);
  numerator_ = add_state("numerator", at::zeros({n_gram_}, doubles), Reduction::Sum);
  denominator_ = add_state("denominator", at::zeros({n_gram_}, doubles), Reduction::Sum);
}

at::Tensor BLEUScore::batch_counts(const std::vector<std::string>& preds,
                                   const std::vector<std::vector<std::string>>& target) const {
  if (preds.size() != target.size()) {
    fail(fmt::format("{} predictions for {} lists of references; each prediction needs its own",
                     preds.size(), target.size()));
  }
  auto counts = at::zeros({2 + 2 * n_gram_}, at::TensorOptions().dtype(at::kDouble));
  double* c = counts.data_ptr<double>();
  double* numerator = c + 2;
  double* denominator = c + 2 + n_gram_;
  for (size_t i = 0; i < preds.size(); ++i) {
    if (target[i].empty()) fail(fmt::format("prediction {} has no reference", i));
    const auto pred = split_words(decode_utf8(name(), preds[i]));
    const auto pred_length = static_cast<int64_t>(pred.size());
    // The closest reference length (the first, on a tie), and each n-gram's most frequent
    // count in any one reference.
    int64_t closest = -1;
    NGramCounts most;
    for (const auto& text : target[i]) {
      const auto reference = split_words(decode_utf8(name(), text));
      const auto length = static_cast<int64_t>(reference.size());
      if (closest < 0 || std::abs(pred_length - length) < std::abs(pred_length - closest)) {
        closest = length;
      }
      for (const auto& [ngram, count] : count_ngrams(reference, n_gram_)) {
        most[ngram] = std::max(most[ngram], count);
      }
    }
    c[0] += static_cast<double>(pred_length);
    c[1] += static_cast<double>(closest);
    for (const auto& [ngram, count] : count_ngrams(pred, n_gram_)) {
      const auto order = ngram.size() - 1;
      denominator[order] += static_cast<double>(count);
      const auto found = most.find(ngram);
      if (found != most.end())
        numerator[order] += static_cast<double>(std::min(count, found->second));
    }
  }
  return counts.to(device());
}

void BLEUScore::update(const std::vector<std::string>& preds,
                       const std::vector<std::vector<std::string>>& target) {
  Metric::update(batch_counts(preds, target));
}

at::Tensor BLEUScore::forward(const std::vector<std::string>& preds,
                              const std::vector<std::vector<std::string>>& target) {
  return Metric::forward(batch_counts(preds, target));
}

void BLEUScore::update_state(const at::Tensor& counts, const at::Tensor& /*unused*/) {
  state(preds_len_).add_(counts[0]);
  state(target_len_).add_(counts[1]);
  state(numerator_).add_(counts.slice(0, 2, 2 + n_gram_));
  state(denominator_).add_(counts.slice(0, 2 + n_gram_));
}

at::Tensor BLEUScore::compute_value() {
  const auto& numerator = state(numerator_);
  const auto& denominator = state(denominator_);
  const auto doubles = at::TensorOptions().dtype(at::kDouble).device(device());
  if (numerator.min().item<double>() == 0) return at::zeros({}, doubles);
  auto precisions = numerator / denominator;
  if (smooth_) {
    precisions = (numerator + 1) / (denominator + 1);
    precisions[0] = numerator[0] / denominator[0];
  }
  const auto weights = at::tensor(weights_, doubles);
  const auto geometric_mean = (weights * precisions.log()).sum().exp();
  const auto c = state(preds_len_), r = state(target_len_);
  const auto brevity = at::where(c > r, at::ones_like(c), (1 - r / c).exp());
  return brevity * geometric_mean;
}

}  // namespace fulgur::metrics
