// fuzz-idx: read_idx_gz on arbitrary files. The first byte picks the form: even, the rest is
// the file as is (the gzip layer gets fuzzed); odd, the rest is gzip-compressed here first, so
// the mutations land in the IDX header and data behind it. Every outcome must be a tensor of
// the declared shape or a DataError.
#include <zlib.h>

#include <vector>

#include "fulgur/data/fashion_mnist.h"
#include "fulgur/errors.h"
#include "fuzz/fuzz_input_file.h"

namespace {

std::vector<uint8_t> gzip(const uint8_t* data, size_t size) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // +16: gzip
  std::vector<uint8_t> out(deflateBound(&stream, size) + 32);
  stream.next_in = const_cast<uint8_t*>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string path;
  if (data[0] % 2 == 0) {
    path = fulgur::fuzz::write_fuzz_input(data + 1, size - 1, ".gz");
  } else {
    const auto compressed = gzip(data + 1, size - 1);
    path = fulgur::fuzz::write_fuzz_input(compressed.data(), compressed.size(), ".gz");
  }
  try {
    const auto tensor = fulgur::read_idx_gz(path);
    if (tensor.scalar_type() != torch::kUInt8) std::abort();
  } catch (const fulgur::DataError&) {
  } catch (const std::exception& e) {
    fulgur::fuzz::report_escape("read_idx_gz", e);
  }
  return 0;
}
