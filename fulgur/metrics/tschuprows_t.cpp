#include "fulgur/metrics/tschuprows_t.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fulgur::metrics {

TschuprowsT::TschuprowsT(BiasCorrectedNominalOptions options)
    : NominalAssociation("TschuprowsT", nominal_options(options)),
      bias_correction_(options.bias_correction) {}

double TschuprowsT::association(const at::Tensor& table) const {
  const auto phi = phi_squared(name(), table, bias_correction_);
  if (!phi) return std::numeric_limits<double>::quiet_NaN();
  return std::clamp(std::sqrt(phi->value / std::sqrt((phi->rows - 1) * (phi->columns - 1))), 0.0,
                    1.0);
}

}  // namespace fulgur::metrics
