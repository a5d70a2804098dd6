#include "fulgur/data/fashion_mnist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

using Bytes = std::vector<unsigned char>;

// IDX header: two zero bytes, type 0x08, the number of dimensions, then big-endian sizes.
Bytes idx_header(const std::vector<uint32_t>& dims, uint32_t magic = 0) {
  if (magic == 0) magic = 0x0800u | static_cast<uint32_t>(dims.size());
  Bytes out;
  auto put = [&](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<unsigned char>(v >> shift));
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  return out;
}

Bytes idx_file(const std::vector<uint32_t>& dims, size_t data_bytes, uint32_t magic = 0) {
  Bytes out = idx_header(dims, magic);
  for (size_t i = 0; i < data_bytes; ++i) out.push_back(static_cast<unsigned char>(i % 10));
  return out;
}

void write_gz(const fs::path& path, const Bytes& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

void write_raw(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class FashionMNISTFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fulgur_fmnist_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A valid tiny split: `images` 28x28 images and `labels` labels (cycling 0..9).
  void write_split(const std::string& prefix, uint32_t images, uint32_t labels) {
    write_gz(dir_ / (prefix + "-images-idx3-ubyte.gz"),
             idx_file({images, 28, 28}, size_t{images} * 784));
    write_gz(dir_ / (prefix + "-labels-idx1-ubyte.gz"), idx_file({labels}, labels));
  }

  std::string error_of(FashionMNIST::Split split = FashionMNIST::Split::Train) {
    try {
      FashionMNIST dataset(dir_.string(), split);
    } catch (const DataError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected DataError";
    return "";
  }

  fs::path dir_;
};

TEST(FashionMNISTTest, LoadsTheRealTrainSplit) {
  const auto start = std::chrono::steady_clock::now();
  FashionMNIST train;  // the default directory, where dataset-fashion-mnist installs the files
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  std::cout << "loaded 60000 training images in " << ms.count() << " ms\n";
  EXPECT_EQ(train.size(), 60000);
  EXPECT_EQ(train.data().sizes(), (std::vector<int64_t>{60000, 1, 28, 28}));
  EXPECT_EQ(train.data().scalar_type(), torch::kFloat);
  EXPECT_TRUE(train.data().is_contiguous());
  EXPECT_EQ(train.targets().scalar_type(), torch::kLong);
  EXPECT_EQ(train.targets().sizes(), (std::vector<int64_t>{60000}));
  EXPECT_EQ(train.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(train.targets().max().item<int64_t>(), 9);
  EXPECT_EQ(train.data().min().item<float>(), 0.f);
  EXPECT_EQ(train.data().max().item<float>(), 1.f);
  // The first training sample is an ankle boot (class 9) whose pixels sum to 76247 / 255.
  EXPECT_EQ(train.targets()[0].item<int64_t>(), 9);
  EXPECT_NEAR(train.data()[0].sum().item<double>(), 76247.0 / 255.0, 1e-3);
  // Each class holds exactly 6000 training images.
  EXPECT_TRUE(
      torch::equal(torch::bincount(train.targets()), torch::full({10}, 6000, torch::kLong)));
}

TEST(FashionMNISTTest, LoadsTheRealTestSplit) {
  FashionMNIST test(FashionMNIST::kDefaultDataDir, FashionMNIST::Split::Test);
  EXPECT_EQ(test.size(), 10000);
  EXPECT_EQ(test.data().sizes(), (std::vector<int64_t>{10000, 1, 28, 28}));
  EXPECT_EQ(test.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(test.targets().max().item<int64_t>(), 9);
  EXPECT_GE(test.data().min().item<float>(), 0.f);
  EXPECT_LE(test.data().max().item<float>(), 1.f);
  EXPECT_TRUE(
      torch::equal(test.targets().slice(0, 0, 4), torch::tensor({9, 2, 1, 1}, torch::kLong)));
}

TEST_F(FashionMNISTFilesTest, ReadIdxGzReturnsTheDeclaredShapeAndBytes) {
  write_gz(dir_ / "cube.gz", idx_file({2, 3, 4}, 24));
  auto tensor = read_idx_gz((dir_ / "cube.gz").string());
  EXPECT_EQ(tensor.scalar_type(), torch::kUInt8);
  EXPECT_EQ(tensor.sizes(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(torch::equal(tensor.flatten(), torch::arange(24).remainder(10).to(torch::kUInt8)));
}

// Found by make fuzz: the empty buffer of a zero-sized shape leaked (LeakSanitizer).
TEST_F(FashionMNISTFilesTest, ZeroSizedDimensionGivesAnEmptyTensorOfThatShape) {
  write_gz(dir_ / "empty.gz", idx_file({0, 28}, 0));
  auto tensor = read_idx_gz((dir_ / "empty.gz").string());
  EXPECT_EQ(tensor.sizes(), (std::vector<int64_t>{0, 28}));
  EXPECT_EQ(tensor.scalar_type(), torch::kUInt8);
}

TEST_F(FashionMNISTFilesTest, TinySplitLoadsAndScalesPixels) {
  write_split("t10k", 3, 3);
  FashionMNIST test(dir_.string(), FashionMNIST::Split::Test);
  EXPECT_EQ(test.size(), 3);
  EXPECT_EQ(test.data().sizes(), (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_FLOAT_EQ(test.data()[0][0][0][9].item<float>(), 9.f / 255.f);
  EXPECT_TRUE(torch::equal(test.targets(), torch::tensor({0, 1, 2}, torch::kLong)));
}

TEST_F(FashionMNISTFilesTest, MissingDirectoryNamesTheFileAndTheFix) {
  fs::remove_all(dir_);
  const auto message = error_of();
  EXPECT_THAT(message,
              AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                    HasSubstr("not found"), HasSubstr("does not exist"),
                    HasSubstr("install dataset-fashion-mnist"), HasSubstr("--data.data_dir")));
}

TEST_F(FashionMNISTFilesTest, MissingLabelFileIsNamed) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({1, 28, 28}, 784));
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-labels-idx1-ubyte.gz").string()),
                                HasSubstr("not found")));
}

TEST_F(FashionMNISTFilesTest, PlainFileIsNotGzip) {
  write_raw(dir_ / "train-images-idx3-ubyte.gz", "this is not compressed");
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("is not a gzip file")));
}

TEST_F(FashionMNISTFilesTest, CorruptCompressedStreamIsReported) {
  // Valid gzip magic and header, then garbage where the deflate stream should be.
  write_raw(dir_ / "train-images-idx3-ubyte.gz",
            std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + std::string(64, '\xff'));
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("corrupt")));
}

TEST_F(FashionMNISTFilesTest, CutGzipFileIsReported) {
  write_split("train", 20, 20);
  const auto path = dir_ / "train-images-idx3-ubyte.gz";
  fs::resize_file(path, fs::file_size(path) / 2);
  EXPECT_THAT(error_of(), AllOf(HasSubstr(path.string()), HasSubstr("truncated")));
}

TEST_F(FashionMNISTFilesTest, TruncatedDataIsReported) {
  // The header promises 5 images (3920 bytes) but only 100 bytes follow.
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({5, 28, 28}, 100));
  write_gz(dir_ / "train-labels-idx1-ubyte.gz", idx_file({5}, 5));
  EXPECT_THAT(error_of(),
              AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                    HasSubstr("is truncated: its header declares shape 5x28x28 (3920 bytes of "
                              "data) but the file holds only 100 bytes")));
}

// Peak resident memory of this process (VmHWM), in bytes.
int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

TEST_F(FashionMNISTFilesTest, AHeaderClaimingHundredsOfGigabytesIsTruncationNotAnAllocation) {
  // 400000 x 1000 x 1000 bytes = 400 GB declared, 100 bytes present: the reader must report
  // truncation from what it read, not try to allocate what the header claims.
  const auto path = dir_ / "huge.gz";
  write_gz(path, idx_file({400000, 1000, 1000}, 100));
  const int64_t before = peak_rss_bytes();
  try {
    read_idx_gz(path.string());
    ADD_FAILURE() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("is truncated: its header declares shape 400000x1000x1000 "
                          "(400000000000 bytes of data) but the file holds only 100 bytes"));
  }
  EXPECT_LT(peak_rss_bytes() - before, int64_t{64} << 20);
}

TEST_F(FashionMNISTFilesTest, TruncatedHeaderIsReported) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", Bytes{0, 0, 8, 3, 0, 0});
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("truncated: it ends inside the header")));
}

TEST_F(FashionMNISTFilesTest, BadMagicIsReported) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({1, 28, 28}, 784, 0x12340803));
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("bad magic number 0x12340803")));
}

TEST_F(FashionMNISTFilesTest, UnsupportedElementTypeIsReported) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({1, 28, 28}, 784, 0x00000d03));
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("element type 0x0d")));
}

TEST_F(FashionMNISTFilesTest, LabelFileInPlaceOfImagesIsReported) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({4}, 4));
  write_gz(dir_ / "train-labels-idx1-ubyte.gz", idx_file({4}, 4));
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string()),
                                HasSubstr("expected images N x 28 x 28")));
}

TEST_F(FashionMNISTFilesTest, ImageAndLabelCountMismatchNamesBothFiles) {
  write_split("train", 5, 4);
  EXPECT_THAT(
      error_of(),
      AllOf(HasSubstr("image count != label count"),
            HasSubstr((dir_ / "train-images-idx3-ubyte.gz").string() + "' holds 5 images"),
            HasSubstr((dir_ / "train-labels-idx1-ubyte.gz").string() + "' holds 4 labels")));
}

TEST_F(FashionMNISTFilesTest, LabelOutOfRangeIsReported) {
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_file({1, 28, 28}, 784));
  Bytes labels = idx_header({1});
  labels.push_back(12);
  write_gz(dir_ / "train-labels-idx1-ubyte.gz", labels);
  EXPECT_THAT(error_of(), AllOf(HasSubstr((dir_ / "train-labels-idx1-ubyte.gz").string()),
                                HasSubstr("holds label 12")));
}

}  // namespace
}  // namespace fulgur
