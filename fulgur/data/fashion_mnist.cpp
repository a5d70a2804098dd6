#include "fulgur/data/fashion_mnist.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

constexpr uint8_t kIdxTypeUint8 = 0x08;
constexpr int64_t kImageSide = 28;
constexpr const char* kInstallHint =
    "install dataset-fashion-mnist (apt-get install dataset-fashion-mnist) or pass "
    "--data.data_dir pointing to a folder with the four *-ubyte.gz files";

// Closes the gz handle on every path out of read_idx_gz, exceptions included.
struct GzFile {
  gzFile handle = nullptr;
  ~GzFile() {
    if (handle != nullptr) gzclose(handle);
  }
};

// zlib's own words for a failed read, e.g. "unexpected end of file" or "invalid block type".
std::string gz_error_text(gzFile file) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  return text != nullptr && *text != '\0' ? std::string(text) : fmt::format("zlib error {}", code);
}

// Reads up to `size` bytes, looping because gzread takes an unsigned int length.
// Returns the bytes read; throws when zlib reports corrupt compressed data.
int64_t gz_read_fully(gzFile file, void* buffer, int64_t size, const std::string& path) {
  auto* out = static_cast<char*>(buffer);
  int64_t done = 0;
  constexpr int64_t kChunk = int64_t{1} << 30;
  while (done < size) {
    const auto want = static_cast<unsigned>(std::min(kChunk, size - done));
    const int got = gzread(file, out + done, want);
    if (got < 0) {
      throw DataError(
          fmt::format("'{}' is corrupt: decompression failed ({}); the file is "
                      "damaged, reinstall or re-download it",
                      path, gz_error_text(file)));
    }
    if (got == 0) {
      // A compressed stream cut short reads as end-of-file plus an error state.
      int code = Z_OK;
      gzerror(file, &code);
      if (code != Z_OK && code != Z_STREAM_END) {
        throw DataError(
            fmt::format("'{}' is corrupt or truncated: decompression failed ({}); "
                        "the file is damaged, reinstall or re-download it",
                        path, gz_error_text(file)));
      }
      break;
    }
    done += got;
  }
  return done;
}

}  // namespace

torch::Tensor read_idx_gz(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw DataError(
        fmt::format("IDX file '{}' not found{}", path,
                    std::filesystem::exists(path, ec) ? " (it is not a regular file)" : ""));
  }
  // zlib reads non-gzip input transparently, so a plain file would pass as data: check the magic.
  {
    std::FILE* raw = std::fopen(path.c_str(), "rb");
    if (raw == nullptr) {
      throw DataError(
          fmt::format("IDX file '{}' cannot be opened for reading (check its permissions)", path));
    }
    std::array<unsigned char, 2> magic{};
    const size_t got = std::fread(magic.data(), 1, magic.size(), raw);
    std::fclose(raw);
    if (got != magic.size() || magic[0] != 0x1f || magic[1] != 0x8b) {
      throw DataError(
          fmt::format("'{}' is not a gzip file (it does not start with the gzip magic "
                      "bytes 1f 8b); expected a gzipped IDX file such as "
                      "train-images-idx3-ubyte.gz",
                      path));
    }
  }

  GzFile file;
  file.handle = gzopen(path.c_str(), "rb");
  if (file.handle == nullptr) {
    throw DataError(fmt::format("IDX file '{}' cannot be opened by zlib", path));
  }
  // A larger input buffer than zlib's 8 KiB default: fewer read calls for the 26 MB image file.
  gzbuffer(file.handle, 1 << 18);

  std::array<unsigned char, 4> magic{};
  if (gz_read_fully(file.handle, magic.data(), 4, path) != 4) {
    throw DataError(
        fmt::format("'{}' is truncated: it ends inside the 4-byte IDX magic number", path));
  }
  const uint32_t magic_value = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                               (uint32_t{magic[2]} << 8) | uint32_t{magic[3]};
  if (magic[0] != 0 || magic[1] != 0 || magic[3] == 0) {
    throw DataError(
        fmt::format("'{}' has a bad magic number 0x{:08x}: an IDX file starts with two "
                    "zero bytes, a type byte and the number of dimensions (e.g. "
                    "0x00000803 for images, 0x00000801 for labels)",
                    path, magic_value));
  }
  if (magic[2] != kIdxTypeUint8) {
    throw DataError(
        fmt::format("'{}' has IDX element type 0x{:02x} (magic 0x{:08x}); only 0x08 "
                    "(unsigned byte) is supported",
                    path, magic[2], magic_value));
  }
  const int ndims = magic[3];
  std::vector<unsigned char> header(static_cast<size_t>(ndims) * 4);
  if (gz_read_fully(file.handle, header.data(), static_cast<int64_t>(header.size()), path) !=
      static_cast<int64_t>(header.size())) {
    throw DataError(fmt::format(
        "'{}' is truncated: it ends inside the header of {} dimension sizes", path, ndims));
  }
  std::vector<int64_t> shape(static_cast<size_t>(ndims));
  int64_t numel = 1;
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  for (int d = 0; d < ndims; ++d) {
    const unsigned char* b = &header[static_cast<size_t>(d) * 4];
    const int64_t dim = (int64_t{b[0]} << 24) | (int64_t{b[1]} << 16) | (int64_t{b[2]} << 8) | b[3];
    shape[static_cast<size_t>(d)] = dim;
    if (dim > 0 && numel > kMaxBytes / dim) {
      throw DataError(fmt::format(
          "'{}' declares a shape too large to be real ({}); the header is "
          "corrupt",
          path, fmt::join(std::vector<int64_t>(shape.begin(), shape.begin() + d + 1), "x")));
    }
    numel *= dim;
  }

  // No data to own: from_blob would be handed a null buffer and never run the deleter.
  if (numel == 0) return torch::empty(shape, torch::kUInt8);

  // The header's size is a claim, not a fact: the buffer grows with the data actually read, so
  // a corrupt header cannot make us allocate a terabyte. Growth is geometric (a few copies for
  // the 47 MB image file); the tensor then takes the buffer over without a copy.
  auto data = std::make_unique<std::vector<uint8_t>>();
  constexpr int64_t kFirstChunk = int64_t{1} << 20;
  int64_t got = 0;
  while (got < numel) {
    const int64_t capacity = std::min(numel, std::max(kFirstChunk, got * 2));
    data->resize(static_cast<size_t>(capacity));
    const int64_t want = capacity - got;
    const int64_t read = gz_read_fully(file.handle, data->data() + got, want, path);
    got += read;
    if (read < want) break;
  }
  if (got != numel) {
    throw DataError(
        fmt::format("'{}' is truncated: its header declares shape {} ({} bytes of data) "
                    "but the file holds only {} bytes",
                    path, fmt::join(shape, "x"), numel, got));
  }
  auto* owned = data.release();
  return torch::from_blob(
      owned->data(), shape, [owned](void*) { delete owned; }, torch::kUInt8);
}

namespace {

torch::Tensor read_fashion_file(const std::filesystem::path& dir, const std::string& name) {
  const auto path = (dir / name).string();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw DataError(
        fmt::format("Fashion-MNIST file '{}' not found: the directory '{}' does not "
                    "exist; {}",
                    path, dir.string(), kInstallHint));
  }
  if (!std::filesystem::exists(path, ec)) {
    throw DataError(fmt::format("Fashion-MNIST file '{}' not found in '{}'; {}", path, dir.string(),
                                kInstallHint));
  }
  try {
    return read_idx_gz(path);
  } catch (const DataError& error) {
    throw DataError(fmt::format("Fashion-MNIST: {}; {}", error.what(), kInstallHint));
  }
}

TensorDataset load_fashion_mnist(const std::string& data_dir, FashionMNIST::Split split) {
  const std::filesystem::path dir(data_dir);
  const std::string prefix = split == FashionMNIST::Split::Train ? "train" : "t10k";
  const std::string images_name = prefix + "-images-idx3-ubyte.gz";
  const std::string labels_name = prefix + "-labels-idx1-ubyte.gz";
  const auto images_path = (dir / images_name).string();
  const auto labels_path = (dir / labels_name).string();

  auto images = read_fashion_file(dir, images_name);
  if (images.dim() != 3 || images.size(1) != kImageSide || images.size(2) != kImageSide) {
    throw DataError(
        fmt::format("Fashion-MNIST: '{}' holds an IDX array of shape [{}], expected "
                    "images N x 28 x 28 (magic 0x00000803); {}",
                    images_path, fmt::join(images.sizes(), ", "), kInstallHint));
  }
  auto labels = read_fashion_file(dir, labels_name);
  if (labels.dim() != 1) {
    throw DataError(
        fmt::format("Fashion-MNIST: '{}' holds an IDX array of shape [{}], expected "
                    "a vector of labels (magic 0x00000801); {}",
                    labels_path, fmt::join(labels.sizes(), ", "), kInstallHint));
  }
  if (images.size(0) != labels.size(0)) {
    throw DataError(
        fmt::format("Fashion-MNIST: image count != label count: '{}' holds {} images "
                    "but '{}' holds {} labels; the files come from different "
                    "releases or one is damaged; {}",
                    images_path, images.size(0), labels_path, labels.size(0), kInstallHint));
  }
  if (labels.numel() > 0) {
    const int64_t max_label = labels.max().item<int64_t>();
    if (max_label >= FashionMNIST::kNumClasses) {
      throw DataError(fmt::format(
          "Fashion-MNIST: '{}' holds label {}, but Fashion-MNIST has {} "
          "classes (0..{}); the file is damaged or not Fashion-MNIST",
          labels_path, max_label, FashionMNIST::kNumClasses, FashionMNIST::kNumClasses - 1));
    }
  }
  // Measured on 60000 images: uint8.div(255) takes a slow casting path (about twice the time);
  // converting first and dividing in place costs one float allocation and a cheap second pass.
  // Division (not a multiply by 1/255) keeps the pixels bit-identical to torchvision's ToTensor.
  auto data =
      images.to(torch::kFloat).div_(255.0).view({images.size(0), 1, kImageSide, kImageSide});
  return TensorDataset(std::move(data), labels.to(torch::kLong));
}

}  // namespace

FashionMNIST::FashionMNIST(const std::string& data_dir, Split split)
    : TensorDataset(load_fashion_mnist(data_dir, split)) {}

}  // namespace fulgur
