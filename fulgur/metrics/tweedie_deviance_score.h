#pragma once
// TweedieDevianceScore (torchmetrics'): the mean Tweedie deviance of target under preds over
// every element seen, sklearn's mean_tweedie_deviance. `power` picks the distribution: 0
// normal (the squared error), 1 Poisson, 2 gamma, 3 inverse Gaussian, any p <= 0 or >= 1.
// Each power's domain is checked per update (one host read), a MetricError naming it, as
// torchmetrics' ValueError: p < 0 needs preds > 0; 1 <= p < 2 preds > 0 and target >= 0;
// p >= 2 both > 0. States: ElementwiseMean's, the sum named "sum_deviance_score".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

struct TweedieDevianceScoreOptions {
  double power = 0.0;
};

class TweedieDevianceScore : public ElementwiseMean {
 public:
  // Raises ConfigError for 0 < power < 1, where no Tweedie distribution exists.
  explicit TweedieDevianceScore(TweedieDevianceScoreOptions options = {});

 protected:
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;

 private:
  // MetricError unless preds and target lie in the power's domain.
  void check_domain(const at::Tensor& preds, const at::Tensor& target) const;

  TweedieDevianceScoreOptions options_;
};

}  // namespace fulgur::metrics
