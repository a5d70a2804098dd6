#pragma once
// TFRecord framing, the container of TensorBoard event files. Each record is
//   uint64 length | uint32 masked_crc32c(length bytes) | payload | uint32 masked_crc32c(payload)
// with integers little endian. A reader checks both checksums, so a torn or corrupt tail is
// detected rather than misread.
#include <cstdint>
#include <string>
#include <string_view>

namespace fulgur::tensorboard {

// TensorFlow's masking: a CRC of data that itself holds CRCs would be weak, so the stored
// value is rotated right by 15 bits and offset by 0xa282ead8.
uint32_t masked_crc32c(std::string_view data);

// Appends one framed record holding `payload` to `out`.
void append_tfrecord(std::string& out, std::string_view payload);

}  // namespace fulgur::tensorboard
