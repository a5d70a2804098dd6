#include "fulgur/loggers/tensorboard/tfrecord.h"

#include "fulgur/loggers/tensorboard/crc32c.h"

namespace fulgur::tensorboard {
namespace {

constexpr uint32_t kMaskDelta = 0xa282ead8u;

// Byte by byte, so the file is the same on any host byte order.
template <typename T>
void append_little_endian(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

}  // namespace

uint32_t masked_crc32c(std::string_view data) {
  uint32_t crc = crc32c(data);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

void append_tfrecord(std::string& out, std::string_view payload) {
  const size_t start = out.size();
  append_little_endian<uint64_t>(out, payload.size());
  append_little_endian<uint32_t>(out, masked_crc32c(std::string_view(out).substr(start, 8)));
  out.append(payload);
  append_little_endian<uint32_t>(out, masked_crc32c(payload));
}

}  // namespace fulgur::tensorboard
