#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum TFRecord files carry.
// Byte-at-a-time from a 256-entry table: event records are small and written rarely, so
// hardware CRC instructions would buy nothing here.
#include <cstdint>
#include <string_view>

namespace fulgur::tensorboard {

// The CRC-32C of `data`; crc32c("123456789") == 0xE3069283.
uint32_t crc32c(std::string_view data);

// Continues `crc` (a finished CRC of earlier bytes) over `data`:
// crc32c_extend(crc32c(a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, std::string_view data);

}  // namespace fulgur::tensorboard
