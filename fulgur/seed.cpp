#include "fulgur/seed.h"

#include <cstdlib>
#include <string>

#include <torch/cuda.h>
#include <torch/utils.h>

namespace fulgur {

void seed_everything(uint64_t seed) {
  torch::manual_seed(seed);  // also seeds every CUDA device where there is one
  std::srand(static_cast<unsigned>(seed));
  ::setenv("PL_GLOBAL_SEED", std::to_string(seed).c_str(), 1);
}

}  // namespace fulgur
