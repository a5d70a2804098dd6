#include "fulgur/metrics/jensen_shannon_divergence.h"

#include <ATen/ATen.h>

#include <cmath>

namespace fulgur::metrics {

JensenShannonDivergence::JensenShannonDivergence(JensenShannonDivergenceOptions options)
    : RowReduction("JensenShannonDivergence", std::move(options.reduction), "measures"),
      log_prob_(options.log_prob) {}

at::Tensor JensenShannonDivergence::row_values(const at::Tensor& p, const at::Tensor& q) const {
  if (log_prob_) {
    const auto log_m = at::logsumexp(at::stack({p, q}), 0) - std::log(2.0);
    return (p.exp() * (p - log_m)).sum(1) / 2 + (q.exp() * (q - log_m)).sum(1) / 2;
  }
  const auto p_share = p / p.sum(1, /*keepdim=*/true);
  const auto q_share = q / q.sum(1, /*keepdim=*/true);
  const auto m = (p_share + q_share) / 2;
  // xlogy: a 0 share adds 0 (m is positive wherever p or q is).
  const auto kl = [&](const at::Tensor& x) { return (at::xlogy(x, x) - at::xlogy(x, m)).sum(1); };
  return kl(p_share) / 2 + kl(q_share) / 2;
}

}  // namespace fulgur::metrics
