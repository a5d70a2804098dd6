#pragma once
// SpearmanCorrCoef (torchmetrics'): the Pearson correlation of the ranks of preds and of
// target, in [-1, 1], as scipy's spearmanr; tied values share their mean rank. [N] each for
// one output, or [N, num_outputs] for a [num_outputs] tensor of per-column correlations.
// The states and the checks are RankCorrelation's. A constant preds or target gives NaN, as
// scipy (torchmetrics' epsilon makes it 0).
#include <cstdint>

#include "fulgur/metrics/rank_correlation.h"

namespace fulgur::metrics {

struct SpearmanCorrCoefOptions {
  int64_t num_outputs = 1;
};

class SpearmanCorrCoef : public RankCorrelation {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit SpearmanCorrCoef(SpearmanCorrCoefOptions options = {});

 protected:
  at::Tensor coefficient(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
