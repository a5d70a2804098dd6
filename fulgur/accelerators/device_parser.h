#pragma once
// Lightning's `devices` parsing for GPU-like accelerators (CUDA, and any other whose devices
// are numbered 0..count-1): N → ids [0..N); -1 or "-1" → all; "0,1" → [0, 1]; "1," → [1];
// "3" → [0, 1, 2]; a list → as is; "auto" → all. Zero devices, duplicates, ids the machine
// lacks and anything unparsable raise ConfigError naming the flag, the value and what is allowed.
#include <string>
#include <vector>

#include "fulgur/accelerators/devices.h"

namespace fulgur {

// `available` is how many devices this machine has; `accelerator` names them in messages.
std::vector<int> parse_gpu_ids(const Devices& devices, int available,
                               const std::string& accelerator);

// "[0, 1, 2]" for messages.
std::string format_ids(const std::vector<int>& ids);

}  // namespace fulgur
