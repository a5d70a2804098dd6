#pragma once
// The states of the random number generators seed_everything seeds, for checkpoints and for
// running code that must not disturb training's randomness (the sanity check). Keys are
// Lightning's: "torch" (the CPU generator, as torch.get_rng_state()) and "torch.cuda" (one state
// per device, as torch.cuda.get_rng_state_all()).
#include <string>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

namespace fulgur {

c10::impl::GenericDict collect_rng_states();
// Raises CheckpointError naming `source` when a state is malformed (checked before any is set).
void restore_rng_states(const c10::impl::GenericDict& states, const std::string& source);
// The checks of restore_rng_states alone.
void check_rng_states(const c10::impl::GenericDict& states, const std::string& source);

// Saves the generators' states on construction and puts them back on destruction (Lightning's
// isolate_rng), so the code in between leaves training's random streams untouched.
class RngIsolation {
 public:
  RngIsolation();
  ~RngIsolation();
  RngIsolation(const RngIsolation&) = delete;
  RngIsolation& operator=(const RngIsolation&) = delete;

 private:
  c10::impl::GenericDict saved_;
};

}  // namespace fulgur
