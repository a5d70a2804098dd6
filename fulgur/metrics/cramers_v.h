#pragma once
// CramersV (torchmetrics'; scipy.stats.contingency.association(method="cramer")): sqrt(phi^2 /
// min(rows - 1, columns - 1)), phi^2 = chi^2 / n, in [0, 1]. With bias_correction (the default)
// Bergsma's corrected estimate, NaN with a warning where the correction leaves no table (a single
// class on one side).
#include "fulgur/metrics/nominal_association.h"

namespace fulgur::metrics {

class CramersV : public NominalAssociation {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown nan_strategy.
  explicit CramersV(BiasCorrectedNominalOptions options);

 protected:
  double association(const at::Tensor& table) const override;

 private:
  bool bias_correction_;
};

}  // namespace fulgur::metrics
