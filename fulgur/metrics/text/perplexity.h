#pragma once
// Perplexity (torchmetrics'): exp of the mean negative log-likelihood of the target tokens,
// update(preds [batch, seq_len, vocab] logits or unnormalised scores (softmax-normalised here),
// target [batch, seq_len] int64 token ids); tokens equal to ignore_index count for nothing.
// States: "total_log_probs" (the summed negative log-probabilities) and "count" (the tokens).
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct PerplexityOptions {
  std::optional<int64_t> ignore_index;
  bool validate_args = true;  // token ids within the vocabulary (one host read per update)
};

class Perplexity : public Metric {
 public:
  explicit Perplexity(PerplexityOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  PerplexityOptions options_;
  StateId log_probs_, count_;
};

}  // namespace fulgur::metrics
