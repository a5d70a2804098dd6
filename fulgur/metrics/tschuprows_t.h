#pragma once
// TschuprowsT (torchmetrics'; scipy.stats.contingency.association(method="tschuprow")):
// sqrt(phi^2 / sqrt((rows - 1) (columns - 1))), in [0, 1]; with bias_correction (the default)
// Bergsma's corrected estimate, NaN with a warning where the correction leaves no table.
#include "fulgur/metrics/nominal_association.h"

namespace fulgur::metrics {

class TschuprowsT : public NominalAssociation {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown nan_strategy.
  explicit TschuprowsT(BiasCorrectedNominalOptions options);

 protected:
  double association(const at::Tensor& table) const override;

 private:
  bool bias_correction_;
};

}  // namespace fulgur::metrics
