#include "fulgur/metrics/kl_divergence.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

KLDivergence::KLDivergence(KLDivergenceOptions options)
    : RowReduction("KLDivergence", std::move(options.reduction), "measures"),
      log_prob_(options.log_prob) {}

at::Tensor KLDivergence::row_values(const at::Tensor& p, const at::Tensor& q) const {
  if (log_prob_) return (p.exp() * (p - q)).sum(1);
  const auto p_share = p / p.sum(1, /*keepdim=*/true);
  const auto q_share = q / q.sum(1, /*keepdim=*/true);
  // Not xlogy(p, p / q): a 0 against a 0 would be 0 / 0 there; here it adds 0, as scipy's.
  return (at::xlogy(p_share, p_share) - at::xlogy(p_share, q_share)).sum(1);
}

}  // namespace fulgur::metrics
