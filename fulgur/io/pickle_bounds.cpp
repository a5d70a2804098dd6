#include "fulgur/io/pickle_bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace fulgur {
namespace {

// How an opcode's argument is laid out in the stream.
enum class Arg {
  kNone,
  kFixed,        // `width` bytes
  kMemoIndex,    // `width` bytes, little-endian: an index into the memo
  kLengthThen,   // a `width`-byte little-endian length, then that many bytes
  kLine,         // bytes up to a newline
  kMemoLine,     // a decimal memo index up to a newline (protocol 0 PUT)
  kTwoLines,     // GLOBAL and INST: module and name
  kUnknown,
};

struct Layout {
  Arg arg;
  size_t width;
};

Layout layout_of(uint8_t op) {
  switch (op) {
    case '(': case '.': case '0': case '1': case '2': case 'N': case 'R': case 'a': case 'b':
    case 'd': case '}': case 'e': case 'l': case ']': case 'o': case 's': case 't': case ')':
    case 'u': case 'Q': case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89:
    case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94:
      return {Arg::kNone, 0};
    case 'K': case 0x80: case 0x82: case 'h': return {Arg::kFixed, 1};
    case 'M': case 0x83: return {Arg::kFixed, 2};
    case 'J': case 0x84: case 'j': return {Arg::kFixed, 4};
    case 'G': case 0x95: return {Arg::kFixed, 8};
    case 'q': return {Arg::kMemoIndex, 1};
    case 'r': return {Arg::kMemoIndex, 4};
    case 0x8a: case 'U': case 'C': case 0x8c: return {Arg::kLengthThen, 1};
    case 0x8b: case 'T': case 'X': case 'B': return {Arg::kLengthThen, 4};
    case 0x8d: case 0x8e: return {Arg::kLengthThen, 8};
    case 'F': case 'I': case 'L': case 'P': case 'S': case 'V': case 'g': return {Arg::kLine, 0};
    case 'p': return {Arg::kMemoLine, 0};
    case 'c': case 'i': return {Arg::kTwoLines, 0};
    default: return {Arg::kUnknown, 0};
  }
}

uint64_t little_endian(const uint8_t* bytes, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

}  // namespace

std::optional<std::string> pickle_bounds_violation(const uint8_t* data, size_t size) {
  // Each memo entry is stored by its own opcode, so a genuine index is below the byte count.
  auto memo_check = [&](uint64_t index, size_t at) -> std::optional<std::string> {
    if (index < size) return std::nullopt;
    return fmt::format("its pickle stores memo entry {} at byte {}, more than a pickle of {} "
                       "bytes can hold",
                       index, at, size);
  };
  auto cut = [&](size_t at) {
    return fmt::format("its pickle ends inside the argument of the opcode at byte {}", at);
  };
  size_t pos = 0;
  while (pos < size) {
    const size_t at = pos;
    const uint8_t op = data[pos++];
    if (op == '.') return std::nullopt;  // STOP
    const Layout layout = layout_of(op);
    const size_t left = size - pos;
    switch (layout.arg) {
      case Arg::kUnknown:
        return std::nullopt;
      case Arg::kNone:
        break;
      case Arg::kFixed:
      case Arg::kMemoIndex:
        if (left < layout.width) return cut(at);
        if (layout.arg == Arg::kMemoIndex) {
          if (auto v = memo_check(little_endian(data + pos, layout.width), at)) return v;
        }
        pos += layout.width;
        break;
      case Arg::kLengthThen: {
        if (left < layout.width) return cut(at);
        const uint64_t length = little_endian(data + pos, layout.width);
        pos += layout.width;
        if (length > size - pos) {
          return fmt::format("its pickle declares {} bytes at byte {}, but only {} follow", length,
                             at, size - pos);
        }
        pos += static_cast<size_t>(length);
        break;
      }
      case Arg::kLine:
      case Arg::kMemoLine:
      case Arg::kTwoLines: {
        for (int line = 0; line < (layout.arg == Arg::kTwoLines ? 2 : 1); ++line) {
          const void* end = std::memchr(data + pos, '\n', size - pos);
          if (end == nullptr) return cut(at);
          const size_t stop = static_cast<size_t>(static_cast<const uint8_t*>(end) - data);
          if (layout.arg == Arg::kMemoLine) {
            uint64_t index = 0;
            constexpr uint64_t kSaturated = uint64_t{1} << 60;  // no overflow, still too big
            for (size_t i = pos; i < stop; ++i) {
              if (data[i] >= '0' && data[i] <= '9') {
                index = std::min(kSaturated, index * 10 + (data[i] - '0'));
              }
            }
            if (auto v = memo_check(index, at)) return v;
          }
          pos = stop + 1;
        }
        break;
      }
    }
  }
  return std::nullopt;
}

}  // namespace fulgur
