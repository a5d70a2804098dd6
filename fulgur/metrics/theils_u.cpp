#include "fulgur/metrics/theils_u.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

TheilsU::TheilsU(NominalOptions options) : NominalAssociation("TheilsU", options) {}

double TheilsU::association(const at::Tensor& table) const {
  const auto n = table.sum();
  const auto joint = table / n;
  const auto target_share = (table.sum(1) / n).unsqueeze(1);
  const auto preds_share = table.sum(0) / n;
  const double preds_entropy = -(preds_share * preds_share.log()).sum().item<double>();
  if (preds_entropy == 0) return 0.0;
  // H(preds | target): the empty cells' 0 log 0 counted as 0.
  const double conditional = at::nansum(joint * (target_share / joint).log()).item<double>();
  return (preds_entropy - conditional) / preds_entropy;
}

}  // namespace fulgur::metrics
