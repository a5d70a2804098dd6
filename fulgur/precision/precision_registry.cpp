#include "fulgur/precision/precision_registry.h"

#include "fulgur/precision/double_precision.h"
#include "fulgur/precision/half_precision.h"
#include "fulgur/precision/mixed_precision.h"

namespace fulgur {

Registry<Precision>& precision_registry() {
  static Registry<Precision>* registry = [] {
    auto* r = new Registry<Precision>("precision");
    r->add("32-true", [] { return std::make_shared<Precision>(); });
    r->add_alias("32", "32-true");
    r->add("64-true", [] { return std::make_shared<DoublePrecision>(); });
    r->add_alias("64", "64-true");
    r->add("bf16-mixed", [] { return std::make_shared<MixedPrecision>(torch::kBFloat16); });
    r->add("bf16-true", [] { return std::make_shared<HalfPrecision>(torch::kBFloat16); });
    r->add("16-true", [] { return std::make_shared<HalfPrecision>(torch::kHalf); });
    r->add("16-mixed", [] { return std::make_shared<MixedPrecision>(torch::kHalf); });
    r->add_alias("16", "16-mixed");
    r->add_alias("bf16", "bf16-mixed");
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
