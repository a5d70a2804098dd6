#include "fulgur/accelerators/accelerator_registry.h"

#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/accelerators/cuda_accelerator.h"

namespace fulgur {

Registry<Accelerator>& accelerator_registry() {
  static Registry<Accelerator>* registry = [] {
    auto* r = new Registry<Accelerator>("accelerator");
    r->add("cpu", [] { return std::make_shared<CPUAccelerator>(); });
    r->add("cuda", [] { return std::make_shared<CUDAAccelerator>(); });
    r->add_alias("gpu", "cuda");
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
