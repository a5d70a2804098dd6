#include "fulgur/metrics/pearsons_contingency_coefficient.h"

#include <algorithm>
#include <cmath>

namespace fulgur::metrics {

PearsonsContingencyCoefficient::PearsonsContingencyCoefficient(NominalOptions options)
    : NominalAssociation("PearsonsContingencyCoefficient", options) {}

double PearsonsContingencyCoefficient::association(const at::Tensor& table) const {
  const double phi = phi_squared(name(), table, /*bias_correction=*/false)->value;
  return std::clamp(std::sqrt(phi / (1 + phi)), 0.0, 1.0);
}

}  // namespace fulgur::metrics
