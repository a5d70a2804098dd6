#pragma once
// KendallRankCorrCoef (torchmetrics'): Kendall's tau between preds and target, the balance of
// concordant over discordant pairs, as scipy's kendalltau: variant "a" (no tie correction),
// "b" (default; ties in either corrected for) or "c" (Stuart's, for tables of unequal size).
// [N] each for one output, or [N, num_outputs] for a [num_outputs] tensor of per-column taus.
// The states and the checks are RankCorrelation's; compute() counts the pairs on the host in
// O(N log N) (Knight's merge sort). A constant column gives NaN, as scipy.
// torchmetrics' t_test (the p-value) is not offered.
#include <cstdint>
#include <string>

#include "fulgur/metrics/rank_correlation.h"

namespace fulgur::metrics {

struct KendallRankCorrCoefOptions {
  std::string variant = "b";
  int64_t num_outputs = 1;
};

class KendallRankCorrCoef : public RankCorrelation {
 public:
  // Raises ConfigError for an unknown variant or num_outputs < 1.
  explicit KendallRankCorrCoef(KendallRankCorrCoefOptions options = {});

 protected:
  at::Tensor coefficient(const at::Tensor& preds, const at::Tensor& target) const override;

 private:
  std::string variant_;
};

}  // namespace fulgur::metrics
