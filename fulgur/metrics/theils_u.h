#pragma once
// TheilsU (torchmetrics'; the uncertainty coefficient U(preds | target)): the share of preds'
// entropy that knowing target removes, (H(preds) - H(preds | target)) / H(preds), in [0, 1]; not
// symmetric. 0 when preds takes a single class (torchmetrics).
#include "fulgur/metrics/nominal_association.h"

namespace fulgur::metrics {

class TheilsU : public NominalAssociation {
 public:
  // Raises ConfigError for num_classes < 1 or an unknown nan_strategy.
  explicit TheilsU(NominalOptions options);

 protected:
  double association(const at::Tensor& table) const override;
};

}  // namespace fulgur::metrics
