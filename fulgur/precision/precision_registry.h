#pragma once
// Precisions by name: "32-true" (alias "32"), "64-true" (alias "64"). Later issues add the
// mixed and half kinds to the same registry.
#include "fulgur/precision/precision.h"
#include "fulgur/registry.h"

namespace fulgur {

Registry<Precision>& precision_registry();

}  // namespace fulgur
