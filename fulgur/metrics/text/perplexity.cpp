#include "fulgur/metrics/text/perplexity.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fulgur::metrics {

Perplexity::Perplexity(PerplexityOptions options) : Metric("Perplexity"), options_(options) {
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  log_probs_ = add_state("total_log_probs", at::zeros({}, doubles), Reduction::Sum);
  count_ = add_state("count", at::zeros({}, doubles), Reduction::Sum);
}

void Perplexity::update_state(const at::Tensor& preds, const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) fail("update() needs preds and target");
  if (preds.dim() != 3 || target.dim() != 2 || preds.size(0) != target.size(0) ||
      preds.size(1) != target.size(1)) {
    fail(
        fmt::format("preds must be [batch, seq_len, vocab] and target [batch, seq_len], not "
                    "[{}] and [{}]",
                    fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  if (!preds.is_floating_point()) {
    fail(fmt::format("preds must be floating point scores, not {}",
                     c10::toString(preds.scalar_type())));
  }
  if (target.scalar_type() != at::kLong) {
    fail(fmt::format("target must hold int64 token ids, not {}",
                     c10::toString(target.scalar_type())));
  }
  const int64_t vocab = preds.size(2);
  auto tokens = target.reshape({-1});
  auto kept = at::ones_like(tokens, tokens.options().dtype(at::kBool));
  if (options_.ignore_index) {
    kept = tokens.ne(*options_.ignore_index);
    tokens = tokens.masked_fill(~kept, 0);
  }
  if (options_.validate_args && tokens.numel() > 0) {
    const auto range = at::stack({tokens.min(), tokens.max()}).to(at::kCPU);
    const auto low = range[0].item<int64_t>(), high = range[1].item<int64_t>();
    if (low < 0 || high >= vocab) {
      fail(fmt::format("target holds token id {}, outside the vocabulary [0, {})",
                       low < 0 ? low : high, vocab));
    }
  }
  const auto log_probs = preds.detach().to(at::kDouble).reshape({-1, vocab}).log_softmax(1);
  const auto picked = log_probs.gather(1, tokens.unsqueeze(1)).squeeze(1);
  state(log_probs_).sub_(picked.masked_select(kept).sum());
  state(count_).add_(kept.sum());
}

at::Tensor Perplexity::compute_value() { return (state(log_probs_) / state(count_)).exp(); }

}  // namespace fulgur::metrics
