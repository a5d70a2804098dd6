#include "fulgur/metrics/concordance_corr_coef.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

ConcordanceCorrCoef::ConcordanceCorrCoef(PearsonCorrCoefOptions options)
    : PearsonCorrCoef("ConcordanceCorrCoef", options) {}

at::Tensor ConcordanceCorrCoef::compute_value() {
  const auto m = merged_moments();
  // The n - 1 of the sample (co)variances cancels everywhere but in the squared mean gap.
  const auto denominator =
      m.sq_dev_pred + m.sq_dev_target + (m.count - 1) * (m.mean_pred - m.mean_target).square();
  return per_output_value(2 * m.co_dev / denominator);
}

}  // namespace fulgur::metrics
