#pragma once
// seed_everything: one seed for every random number generator fulgur and LibTorch use
// (LibTorch's CPU and CUDA generators, std::rand), exported as PL_GLOBAL_SEED like Lightning.
#include <cstdint>

namespace fulgur {

void seed_everything(uint64_t seed);

// A seed when the user gave none (Lightning's seed_everything(None)): PL_GLOBAL_SEED when set,
// else a random one, which is then exported as PL_GLOBAL_SEED, so the ranks a launcher starts
// later draw the same data order and split as this process.
uint64_t pick_seed();

}  // namespace fulgur
