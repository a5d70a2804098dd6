// TorchCheckpointIO: round trips, atomic replacement, clear errors for missing and damaged files,
// and Python's torch.load reading what fulgur wrote.
#include "fulgur/io/torch_checkpoint_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "fulgur/errors.h"
#include "python.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TorchCheckpointIOTest : public testing::TempDirTest {
 protected:
  static void write_bytes(const std::string& file, const std::vector<char>& bytes) {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  static std::vector<char> read_bytes(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // Files in the test directory other than `except`, to catch stray temporaries.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      out.push_back(fs::relative(entry.path(), dir_).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string load_error(const std::string& file) {
    try {
      io_.load_checkpoint(file);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "<no error>";
  }

  static CheckpointDict sample() {
    auto inner = make_checkpoint_dict();
    inner.insert("weight", torch::arange(6, torch::kFloat32).reshape({2, 3}));
    inner.insert("name", std::string("linear"));
    auto ckpt = make_checkpoint_dict();
    ckpt.insert("epoch", int64_t{3});
    ckpt.insert("global_step", int64_t{1200});
    ckpt.insert("lr", 0.125);
    ckpt.insert("pytorch-lightning_version", std::string("2.6.0"));
    ckpt.insert("state_dict", inner);
    ckpt.insert("steps", c10::List<int64_t>({1, 2, 3}));
    return ckpt;
  }

  TorchCheckpointIO io_;
};

TEST_F(TorchCheckpointIOTest, RoundTripsANestedDict) {
  io_.save_checkpoint(sample(), path("a.ckpt"));
  auto loaded = io_.load_checkpoint(path("a.ckpt"));
  EXPECT_EQ(loaded.keyType()->kind(), c10::TypeKind::StringType);
  EXPECT_EQ(loaded.size(), 6u);
  EXPECT_EQ(loaded.at("epoch").toInt(), 3);
  EXPECT_EQ(loaded.at("global_step").toInt(), 1200);
  EXPECT_DOUBLE_EQ(loaded.at("lr").toDouble(), 0.125);
  EXPECT_EQ(loaded.at("pytorch-lightning_version").toStringRef(), "2.6.0");
  auto inner = loaded.at("state_dict").toGenericDict();
  EXPECT_EQ(inner.at("name").toStringRef(), "linear");
  EXPECT_TRUE(torch::equal(inner.at("weight").toTensor(),
                           torch::arange(6, torch::kFloat32).reshape({2, 3})));
  EXPECT_EQ(loaded.at("steps").toIntVector(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(files(), std::vector<std::string>{"a.ckpt"});  // no temporaries left behind
}

TEST_F(TorchCheckpointIOTest, CreatesParentDirectories) {
  io_.save_checkpoint(sample(), path("lightning_logs/version_0/checkpoints/last.ckpt"));
  EXPECT_TRUE(fs::is_regular_file(path("lightning_logs/version_0/checkpoints/last.ckpt")));
  EXPECT_EQ(io_.load_checkpoint(path("lightning_logs/version_0/checkpoints/last.ckpt"))
                .at("epoch")
                .toInt(),
            3);
}

TEST_F(TorchCheckpointIOTest, OverwritesInPlace) {
  io_.save_checkpoint(sample(), path("a.ckpt"));
  auto second = make_checkpoint_dict();
  second.insert("epoch", int64_t{9});
  io_.save_checkpoint(second, path("a.ckpt"));
  auto loaded = io_.load_checkpoint(path("a.ckpt"));
  EXPECT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded.at("epoch").toInt(), 9);
  EXPECT_EQ(files(), std::vector<std::string>{"a.ckpt"});
}

// Tensors larger than the writer's write-behind window, replacing a file of the same size:
// every byte comes back, and a reader that opened the old file keeps reading the old bytes.
TEST_F(TorchCheckpointIOTest, LargeTensorsRoundTripAcrossWriteBehindWindows) {
  auto big = make_checkpoint_dict();
  big.insert("a", torch::arange(int64_t{9} << 20, torch::kInt32));  // 36 MiB
  big.insert("b", torch::randn({3, 1000, 1001}));
  io_.save_checkpoint(big, path("big.ckpt"));
  std::ifstream old_reader(path("big.ckpt"), std::ios::binary);
  const auto old_bytes = read_bytes(path("big.ckpt"));

  big.insert_or_assign("a", torch::arange(int64_t{9} << 20, torch::kInt32).neg());
  io_.save_checkpoint(big, path("big.ckpt"));
  const auto loaded = io_.load_checkpoint(path("big.ckpt"));
  EXPECT_TRUE(torch::equal(loaded.at("a").toTensor(), big.at("a").toTensor()));
  EXPECT_TRUE(torch::equal(loaded.at("b").toTensor(), big.at("b").toTensor()));
  EXPECT_EQ(files(), std::vector<std::string>{"big.ckpt"});

  const std::vector<char> still_old{std::istreambuf_iterator<char>(old_reader),
                                    std::istreambuf_iterator<char>()};
  EXPECT_TRUE(still_old == old_bytes);
}

TEST_F(TorchCheckpointIOTest, FailedSerializationLeavesTheOldFileIntact) {
  io_.save_checkpoint(sample(), path("a.ckpt"));
  const auto before = read_bytes(path("a.ckpt"));
  auto bad = make_checkpoint_dict();
  bad.insert("epoch", int64_t{4});
  // A future cannot be pickled: serialization fails before any byte reaches the disk.
  bad.insert("pending", c10::IValue(c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get())));
  try {
    io_.save_checkpoint(bad, path("a.ckpt"));
    ADD_FAILURE() << "saving a future must fail";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save checkpoint " + path("a.ckpt") +
                                    ": its contents cannot be serialized"));
  }
  EXPECT_EQ(read_bytes(path("a.ckpt")), before);
  EXPECT_EQ(files(), std::vector<std::string>{"a.ckpt"});
}

TEST_F(TorchCheckpointIOTest, FailedRenameRemovesTheTemporary) {
  // The target is a non-empty directory: writing the temporary works, the rename cannot.
  fs::create_directories(path("taken.ckpt/inside"));
  try {
    io_.save_checkpoint(sample(), path("taken.ckpt"));
    ADD_FAILURE() << "renaming over a directory must fail";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save checkpoint " + path("taken.ckpt") + ": renaming " +
                                    path("taken.ckpt") + ".tmp-"));
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"taken.ckpt", "taken.ckpt/inside"}));
}

TEST_F(TorchCheckpointIOTest, ParentThatIsAFileIsACheckpointError) {
  write_bytes(path("plain"), {'x'});
  try {
    io_.save_checkpoint(sample(), path("plain/a.ckpt"));
    ADD_FAILURE() << "a file cannot be a directory";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save checkpoint " + path("plain/a.ckpt") +
                                    ": cannot create directory " + path("plain")));
  }
  EXPECT_EQ(files(), std::vector<std::string>{"plain"});
}

TEST_F(TorchCheckpointIOTest, MissingFile) {
  EXPECT_EQ(load_error(path("nope.ckpt")), "checkpoint not found: " + path("nope.ckpt"));
  EXPECT_EQ(load_error(dir_.string()), "checkpoint not found: " + dir_.string());
}

TEST_F(TorchCheckpointIOTest, TruncatedFile) {
  io_.save_checkpoint(sample(), path("a.ckpt"));
  auto bytes = read_bytes(path("a.ckpt"));
  for (size_t keep : {bytes.size() / 2, bytes.size() - 10, size_t{40}}) {
    write_bytes(path("cut.ckpt"), std::vector<char>(bytes.begin(), bytes.begin() + keep));
    EXPECT_THAT(load_error(path("cut.ckpt")),
                HasSubstr("cannot read checkpoint " + path("cut.ckpt") +
                          ": the file is truncated or corrupt ("))
        << "kept " << keep << " of " << bytes.size() << " bytes";
  }
}

TEST_F(TorchCheckpointIOTest, RandomBytesAndEmptyFiles) {
  std::mt19937 rng(7);
  std::vector<char> noise(4096);
  for (auto& c : noise) c = static_cast<char>(rng() & 0xff);
  noise[0] = 'X';  // make sure it does not start like a zip by chance
  write_bytes(path("noise.ckpt"), noise);
  EXPECT_EQ(load_error(path("noise.ckpt")),
            "cannot read checkpoint " + path("noise.ckpt") +
                ": the file is not a torch checkpoint (no zip header; 4096 bytes)");
  write_bytes(path("empty.ckpt"), {});
  EXPECT_EQ(load_error(path("empty.ckpt")),
            "cannot read checkpoint " + path("empty.ckpt") +
                ": the file is not a torch checkpoint (no zip header; 0 bytes)");
  // A zip header followed by garbage reaches the unpickler, which must fail cleanly.
  std::vector<char> fake_zip = {'P', 'K', '\x03', '\x04'};
  fake_zip.insert(fake_zip.end(), noise.begin(), noise.end());
  write_bytes(path("fakezip.ckpt"), fake_zip);
  EXPECT_THAT(load_error(path("fakezip.ckpt")),
              HasSubstr("cannot read checkpoint " + path("fakezip.ckpt") +
                        ": the file is truncated or corrupt"));
}

TEST_F(TorchCheckpointIOTest, ValidPickleThatIsNotACheckpoint) {
  write_bytes(path("tensor.ckpt"), torch::pickle_save(torch::ones({2})));
  EXPECT_EQ(load_error(path("tensor.ckpt")),
            "checkpoint " + path("tensor.ckpt") +
                " does not hold a dict (found Tensor); it was not written by fulgur or Lightning");
  c10::Dict<int64_t, int64_t> int_keys;
  int_keys.insert(1, 2);
  write_bytes(path("intkeys.ckpt"), torch::pickle_save(c10::IValue(int_keys)));
  EXPECT_EQ(load_error(path("intkeys.ckpt")),
            "checkpoint " + path("intkeys.ckpt") +
                " holds a dict whose keys are not all strings (found a key of type Int); it was "
                "not written by fulgur or Lightning");
}

TEST_F(TorchCheckpointIOTest, RemoveDeletesAndToleratesMissingFiles) {
  io_.save_checkpoint(sample(), path("a.ckpt"));
  io_.remove_checkpoint(path("a.ckpt"));
  EXPECT_FALSE(fs::exists(path("a.ckpt")));
  EXPECT_NO_THROW(io_.remove_checkpoint(path("a.ckpt")));
  EXPECT_NO_THROW(io_.remove_checkpoint(path("never/was.ckpt")));
}

TEST_F(TorchCheckpointIOTest, PythonTorchLoadReadsIt) {
  io_.save_checkpoint(sample(), path("py.ckpt"));
  const std::string command =
      testing::python() + " -c \"import torch; d = torch.load('" + path("py.ckpt") +
      "'); sd = d['state_dict']; print(type(d).__name__, sorted(d.keys()), d['epoch'], "
      "d['global_step'], d['lr'], d['pytorch-lightning_version'], sd['name'], "
      "sd['weight'].dtype, sd['weight'].tolist(), d['steps'])\" 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  EXPECT_EQ(::pclose(pipe), 0) << output;
  EXPECT_EQ(output,
            "dict ['epoch', 'global_step', 'lr', 'pytorch-lightning_version', 'state_dict', "
            "'steps'] 3 1200 0.125 2.6.0 linear torch.float32 [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] "
            "[1, 2, 3]\n");
}

TEST(CheckpointDict, HasStringKeysAndAnyValues) {
  auto d = make_checkpoint_dict();
  EXPECT_EQ(d.keyType()->kind(), c10::TypeKind::StringType);
  EXPECT_EQ(d.valueType()->kind(), c10::TypeKind::AnyType);
  EXPECT_TRUE(d.empty());
}

}  // namespace
}  // namespace fulgur
