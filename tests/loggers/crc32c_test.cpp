#include "fulgur/loggers/tensorboard/crc32c.h"

#include <gtest/gtest.h>

#include <string>

#include "fulgur/loggers/tensorboard/tfrecord.h"

namespace fulgur::tensorboard {
namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(crc32c(""), 0x00000000u);
  EXPECT_EQ(crc32c("a"), 0xC1D04330u);
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c("The quick brown fox jumps over the lazy dog"), 0x22620404u);
  // RFC 3720 (iSCSI), appendix B.4.
  EXPECT_EQ(crc32c(std::string(32, '\x00')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
}

TEST(Crc32cTest, ExtendContinuesACrc) {
  EXPECT_EQ(crc32c_extend(crc32c("1234"), "56789"), crc32c("123456789"));
  EXPECT_EQ(crc32c_extend(crc32c(""), "123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c_extend(crc32c("123456789"), ""), 0xE3069283u);
}

TEST(Crc32cTest, MaskedAsTensorFlowMasksIt) {
  // ((crc >> 15) | (crc << 17)) + 0xa282ead8, modulo 2^32.
  EXPECT_EQ(masked_crc32c(""), 0xA282EAD8u);
  EXPECT_EQ(masked_crc32c("123456789"), 0xC78AB0E5u);
  EXPECT_EQ(masked_crc32c(std::string(32, '\xFF')), 0xF909B029u);
}

TEST(TfRecordTest, FramesAPayload) {
  std::string out = "kept";
  append_tfrecord(out, "hello");
  // Computed by an independent (Python) implementation of the same format.
  EXPECT_EQ(out, "kept" + bytes({0x05, 0, 0, 0, 0, 0, 0, 0, 0xea, 0xb2, 0x04, 0x3e}) + "hello" +
                     bytes({0xbb, 0x1f, 0x1c, 0x19}));
}

TEST(TfRecordTest, EmptyPayloadIsAWholeRecord) {
  std::string out;
  append_tfrecord(out, "");
  ASSERT_EQ(out.size(), 16u);
  EXPECT_EQ(out.substr(0, 8), std::string(8, '\0'));
  EXPECT_EQ(out.substr(12), bytes({0xd8, 0xea, 0x82, 0xa2}));  // masked crc of "" (LE)
}

}  // namespace
}  // namespace fulgur::tensorboard
