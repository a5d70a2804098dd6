#pragma once
// The readers under test take paths, so each fuzz input is written to a file in the current
// directory (scripts/fuzz runs each target in a scratch folder of its own) and read back from
// there. Rewritten in place for every input: no file per input is left behind.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

namespace fulgur::fuzz {

inline std::string write_fuzz_input(const uint8_t* data, size_t size, const char* suffix) {
  const std::string path = std::string("fuzz-input") + suffix;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// An exception the reader must never let out: a finding. Abort so the fuzzer saves the input.
[[noreturn]] inline void report_escape(const char* reader, const std::exception& e) {
  std::fprintf(stderr, "%s let an exception other than fulgur's error out: %s\n", reader,
               e.what());
  std::abort();
}

}  // namespace fulgur::fuzz
