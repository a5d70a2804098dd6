#pragma once
// Accelerators by name: "cpu", "cuda" (alias "gpu"). "auto" is resolved by the
// AcceleratorConnector.
#include "fulgur/accelerators/accelerator.h"
#include "fulgur/registry.h"

namespace fulgur {

Registry<Accelerator>& accelerator_registry();

}  // namespace fulgur
