#pragma once
// PearsonsContingencyCoefficient (torchmetrics'; scipy.stats.contingency.association(method=
// "pearson")): sqrt(phi^2 / (1 + phi^2)), phi^2 = chi^2 / n, in [0, 1).
#include "fulgur/metrics/nominal_association.h"

namespace fulgur::metrics {

class PearsonsContingencyCoefficient : public NominalAssociation {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown nan_strategy.
  explicit PearsonsContingencyCoefficient(NominalOptions options);

 protected:
  double association(const at::Tensor& table) const override;
};

}  // namespace fulgur::metrics
