#pragma once
// The entries of a directory, read with POSIX opendir/readdir and stat.
//
// Not std::filesystem::directory_iterator: PyTorch's Linux wheels (2.5 and later) link a copy of
// libstdc++'s filesystem code statically and export it (pytorch/pytorch#133437), so built
// against such a LibTorch, fulgur's calls bind to that copy, compiled by another compiler than
// the headers fulgur inlines around it. POSIX has one ABI.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fulgur {

struct DirectoryEntry {
  std::string name;  // the file name alone
  bool is_directory = false;
  bool is_regular_file = false;
  int64_t modified_ns = 0;  // last modification, in nanoseconds since the epoch
};

// The entries of `dir` ("" is the current directory) but "." and "..", in no particular order,
// with what stat(2) says of each (symbolic links followed). Empty when `dir` does not exist or
// cannot be read.
std::vector<DirectoryEntry> list_directory(const std::string& dir);

// Reads the number in a numbered file name ("version_3", "hpc_ckpt_12.ckpt", "x.tmp-4711"):
// true when `digits` is nothing but decimal digits (no sign, no space) and fits in `out`.
template <typename Int>
bool parse_count(std::string_view digits, Int& out) {
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return error == std::errc() && end == digits.data() + digits.size();
}

}  // namespace fulgur
