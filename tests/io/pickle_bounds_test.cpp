// The walk over a checkpoint's pickle that rejects memo indices and lengths the pickle's own
// size cannot justify, and TorchCheckpointIO refusing the files make fuzz found with it.
#include "fulgur/io/pickle_bounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <string>

#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "project_paths.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;

std::optional<std::string> violation(const std::string& pickle) {
  return pickle_bounds_violation(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size());
}

TEST(PickleBounds, WhatTorchPicklesPasses) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("epoch", int64_t{3});
  dict.insert("name", std::string(300, 'x'));  // a BINUNICODE with a 4-byte length
  dict.insert("weights", c10::List<double>({1.5, -2.0}));
  const std::vector<char> bytes = torch::jit::pickle(c10::IValue(dict));
  EXPECT_EQ(violation(std::string(bytes.begin(), bytes.end())), std::nullopt);
}

TEST(PickleBounds, MemoIndexBeyondThePickleIsRejected) {
  // PROTO 2, EMPTY_DICT, LONG_BINPUT 1951541513, STOP: the index of the fuzzed checkpoint.
  const std::string pickle("\x80\x02}r\x09\x29\x52\x74.", 9);
  EXPECT_EQ(violation(pickle), "its pickle stores memo entry 1951541513 at byte 3, more than a "
                               "pickle of 9 bytes can hold");
  // The same opcode with index 0 is what a pickler writes.
  EXPECT_EQ(violation(std::string("\x80\x02}r\0\0\0\0.", 9)), std::nullopt);
}

TEST(PickleBounds, Protocol0PutIsCheckedToo) {
  EXPECT_THAT(violation("}p99999\n."), ::testing::Optional(HasSubstr("memo entry 99999")));
  EXPECT_EQ(violation("}p0\n."), std::nullopt);
}

TEST(PickleBounds, DeclaredLengthBeyondTheBytesLeftIsRejected) {
  // BINUNICODE claiming 4 GB, then 2 bytes.
  const std::string pickle("\x80\x02X\xff\xff\xff\xff" "ab.", 10);
  EXPECT_EQ(violation(pickle),
            "its pickle declares 4294967295 bytes at byte 2, but only 3 follow");
}

TEST(PickleBounds, ArgumentCutByTheEndIsRejected) {
  EXPECT_EQ(violation(std::string("\x80\x02r\x01", 4)),
            "its pickle ends inside the argument of the opcode at byte 2");
  EXPECT_EQ(violation("\x80\x02" "cmodule\nna"),
            "its pickle ends inside the argument of the opcode at byte 2");
}

TEST(PickleBounds, UnknownOpcodeIsLeftToTheUnpickler) {
  // 0xff is no opcode: the walk stops there, even with a bad index after it.
  EXPECT_EQ(violation(std::string("\xffr\xff\xff\xff\xff.", 7)), std::nullopt);
}

TEST(PickleBounds, CheckpointsFoundByFuzzingAreACheckpointError) {
  TorchCheckpointIO io;
  const std::string corpus = testing::source_dir() + "/fuzz/corpus/checkpoint/";
  try {
    io.load_checkpoint(corpus + "memo_index_31gb");
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("memo entry 1951541513"));
  }
  // Before the walk: 16 s and 4 GB of memory before LibTorch's own error.
  try {
    io.load_checkpoint(corpus + "string_length_3gb");
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("declares 3774808073 bytes at byte 63, but only 630 follow"));
  }
}

}  // namespace
}  // namespace fulgur
