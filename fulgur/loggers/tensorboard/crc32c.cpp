#include "fulgur/loggers/tensorboard/crc32c.h"

#include <array>

namespace fulgur::tensorboard {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41 with its bits reversed

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    table[byte] = crc;
  }
  return table;
}

// Computed by the compiler: no initialization order to worry about, nothing mutable.
constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c_extend(uint32_t crc, std::string_view data) {
  crc = ~crc;
  for (unsigned char byte : data) crc = kTable[(crc ^ byte) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data); }

}  // namespace fulgur::tensorboard
