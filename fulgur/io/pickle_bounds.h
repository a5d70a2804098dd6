#pragma once
// LibTorch's unpickler trusts the numbers inside a pickle: a memo index makes it resize its
// memo table to that index, a string's declared length makes it allocate that many bytes. A
// 2 KB corrupt checkpoint can so ask for 31 GB (found by make fuzz). This walk over the opcodes
// rejects what the pickle's own length cannot justify before the unpickler sees it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fulgur {

// Why the pickle of `size` bytes cannot be genuine, or nothing when its memo indices and
// declared lengths all fit. The walk stops at STOP or at an opcode it does not know (the
// unpickler then rejects that opcode itself).
std::optional<std::string> pickle_bounds_violation(const uint8_t* data, size_t size);

}  // namespace fulgur
