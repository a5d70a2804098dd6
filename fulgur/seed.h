#pragma once
// seed_everything: one seed for every random number generator fulgur and LibTorch use
// (LibTorch's CPU and CUDA generators, std::rand), exported as PL_GLOBAL_SEED like Lightning.
#include <cstdint>

namespace fulgur {

void seed_everything(uint64_t seed);

}  // namespace fulgur
