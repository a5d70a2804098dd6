#include "fulgur/seed.h"

#include <cstdlib>
#include <random>
#include <string>

#include <torch/cuda.h>
#include <torch/utils.h>

namespace fulgur {

void seed_everything(uint64_t seed) {
  torch::manual_seed(seed);  // also seeds every CUDA device where there is one
  std::srand(static_cast<unsigned>(seed));
  ::setenv("PL_GLOBAL_SEED", std::to_string(seed).c_str(), 1);
}

uint64_t pick_seed() {
  if (const char* given = std::getenv("PL_GLOBAL_SEED")) {
    char* end = nullptr;
    const auto seed = std::strtoull(given, &end, 10);
    if (end != given && *end == '\0') return seed;
  }
  const uint64_t seed = std::random_device{}();
  ::setenv("PL_GLOBAL_SEED", std::to_string(seed).c_str(), 1);
  return seed;
}

}  // namespace fulgur
