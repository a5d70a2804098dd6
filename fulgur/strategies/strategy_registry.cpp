#include "fulgur/strategies/strategy_registry.h"

#include "fulgur/strategies/ddp.h"
#include "fulgur/strategies/single_device_strategy.h"

namespace fulgur {

Registry<Strategy>& strategy_registry() {
  static Registry<Strategy>* registry = [] {
    auto* r = new Registry<Strategy>("strategy");
    r->add("single_device", [] { return std::make_shared<SingleDeviceStrategy>(); });
    r->add("ddp", [] { return std::make_shared<DDPStrategy>(); });
    r->add("ddp_find_unused_parameters_true", [] {
      return std::make_shared<DDPStrategy>(DDPOptions{.find_unused_parameters = true});
    });
    // Lightning's other multi-process strategies; later versions register them here.
    for (const char* name : {"ddp_spawn", "fsdp", "deepspeed"}) {
      r->add_planned(name);
    }
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
