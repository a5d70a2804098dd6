// main() for the fuzz targets: runs LLVMFuzzerTestOneInput once on each file named on the
// command line (afl-fuzz passes one through @@; a person replays a finding the same way).
// The process ends with LeakSanitizer's check over every input it ran, then _Exit: LibTorch's
// static destructors deregister every operator, about 0.7 s under AddressSanitizer, which was
// most of each execution under afl-fuzz. scripts/fuzz fuzzes with detect_leaks=0 (the check is
// then a no-op) and replays the whole queue in one process with it on.
#include <sanitizer/lsan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT_FILE...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], argv[i]);
      return 2;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::fflush(nullptr);
  __lsan_do_leak_check();  // reports and exits non-zero on a leak
  std::_Exit(0);
}
