#pragma once
// Strategies by name: "single_device" (later "ddp", "ddp_find_unused_parameters_true", ...).
// "auto" is resolved by the AcceleratorConnector.
#include "fulgur/registry.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {

Registry<Strategy>& strategy_registry();

}  // namespace fulgur
