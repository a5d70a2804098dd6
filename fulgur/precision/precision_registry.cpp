#include "fulgur/precision/precision_registry.h"

#include "fulgur/precision/double_precision.h"

namespace fulgur {

Registry<Precision>& precision_registry() {
  static Registry<Precision>* registry = [] {
    auto* r = new Registry<Precision>("precision");
    r->add("32-true", [] { return std::make_shared<Precision>(); });
    r->add_alias("32", "32-true");
    r->add("64-true", [] { return std::make_shared<DoublePrecision>(); });
    r->add_alias("64", "64-true");
    // Lightning's other precisions; their plugins come in a later version and register here.
    for (const char* name : {"16-mixed", "bf16-mixed", "16-true", "bf16-true"}) {
      r->add_planned(name);
    }
    r->add_alias("16", "16-mixed");
    r->add_alias("bf16", "bf16-mixed");
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
