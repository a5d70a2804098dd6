#include "fulgur/metrics/cramers_v.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fulgur::metrics {

CramersV::CramersV(BiasCorrectedNominalOptions options)
    : NominalAssociation("CramersV", nominal_options(options)),
      bias_correction_(options.bias_correction) {}

double CramersV::association(const at::Tensor& table) const {
  const auto phi = phi_squared(name(), table, bias_correction_);
  if (!phi) return std::numeric_limits<double>::quiet_NaN();
  return std::clamp(std::sqrt(phi->value / std::min(phi->rows - 1, phi->columns - 1)), 0.0, 1.0);
}

}  // namespace fulgur::metrics
