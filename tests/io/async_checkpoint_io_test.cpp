// AsyncCheckpointIO: what is written is the checkpoint as it was when save returned, saves and
// removes run in order on one background thread, background failures surface as
// CheckpointError, and teardown, load and the destructor wait for pending work.
#include "fulgur/io/async_checkpoint_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// Writes through a TorchCheckpointIO after a delay, so that the caller of an asynchronous save
// gets far ahead of the write; records what ran, in which order and on which thread.
class SlowCheckpointIO : public CheckpointIO {
 public:
  explicit SlowCheckpointIO(std::chrono::milliseconds delay) : delay_(delay) {}
  std::string name() const override { return "SlowCheckpointIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) override {
    std::this_thread::sleep_for(delay_);
    if (!fail_with.empty()) throw std::runtime_error(fail_with);
    inner_.save_checkpoint(checkpoint, path);
    record("save " + fs::path(path).filename().string());
  }
  CheckpointDict load_checkpoint(const std::string& path) override {
    record("load " + fs::path(path).filename().string());
    return inner_.load_checkpoint(path);
  }
  void remove_checkpoint(const std::string& path) override {
    inner_.remove_checkpoint(path);
    record("remove " + fs::path(path).filename().string());
  }

  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard lock(mutex_);
    return threads_;
  }
  std::string fail_with;  // set before any save is queued

 private:
  void record(std::string event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
    threads_.push_back(std::this_thread::get_id());
  }

  std::chrono::milliseconds delay_;
  TorchCheckpointIO inner_;
  std::mutex mutex_;
  std::vector<std::string> events_;
  std::vector<std::thread::id> threads_;
};

// Records where the tensor "w" of each saved checkpoint lives, and keeps the checkpoints only
// when asked to (as an in-memory IO would).
class AddressRecordingIO : public CheckpointIO {
 public:
  explicit AddressRecordingIO(bool keep) : keep_(keep) {}
  std::string name() const override { return "AddressRecordingIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string&) override {
    const auto w = checkpoint.at("w").toTensor();
    addresses.push_back(reinterpret_cast<std::uintptr_t>(w.data_ptr()));
    if (keep_) kept.push_back(checkpoint);
  }
  CheckpointDict load_checkpoint(const std::string&) override { return make_checkpoint_dict(); }
  void remove_checkpoint(const std::string&) override {}

  std::vector<std::uintptr_t> addresses;  // read after wait()
  std::vector<CheckpointDict> kept;

 private:
  bool keep_;
};

class AsyncCheckpointIOTest : public testing::TempDirTest {
 protected:

  static CheckpointDict with_epoch(int64_t epoch) {
    auto ckpt = make_checkpoint_dict();
    ckpt.insert("epoch", epoch);
    return ckpt;
  }
  static int64_t epoch_in(const std::string& file) {
    return TorchCheckpointIO().load_checkpoint(file).at("epoch").toInt();
  }
  static CheckpointDict with_weight(const torch::Tensor& w) {
    auto ckpt = make_checkpoint_dict();
    ckpt.insert("w", w);
    return ckpt;
  }
  // A parent that is a regular file: the wrapped IO cannot create the directory.
  std::string unwritable_path() {
    std::ofstream(path("plain")) << "x";
    return path("plain/a.ckpt");
  }

};

TEST_F(AsyncCheckpointIOTest, NameAndDefaultWrappedIO) {
  AsyncCheckpointIO io;
  EXPECT_EQ(io.name(), "AsyncCheckpointIO");
  ASSERT_NE(io.checkpoint_io(), nullptr);
  EXPECT_EQ(io.checkpoint_io()->name(), "TorchCheckpointIO");
  auto slow = std::make_shared<SlowCheckpointIO>(0ms);
  EXPECT_EQ(AsyncCheckpointIO(slow).checkpoint_io(), slow);
}

TEST_F(AsyncCheckpointIOTest, RoundTripsANestedDict) {
  auto inner = make_checkpoint_dict();
  inner.insert("weight", torch::arange(6, torch::kFloat32).reshape({2, 3}));
  inner.insert("name", std::string("linear"));
  auto ckpt = make_checkpoint_dict();
  ckpt.insert("epoch", int64_t{3});
  ckpt.insert("lr", 0.125);
  ckpt.insert("state_dict", inner);
  ckpt.insert("steps", c10::List<int64_t>({1, 2, 3}));
  ckpt.insert("pair", c10::ivalue::Tuple::create(int64_t{4}, torch::ones({2}, torch::kInt64)));

  AsyncCheckpointIO io;
  io.save_checkpoint(ckpt, path("a.ckpt"));
  auto loaded = io.load_checkpoint(path("a.ckpt"));
  EXPECT_EQ(loaded.keyType()->kind(), c10::TypeKind::StringType);
  EXPECT_EQ(loaded.size(), 5u);
  EXPECT_EQ(loaded.at("epoch").toInt(), 3);
  EXPECT_DOUBLE_EQ(loaded.at("lr").toDouble(), 0.125);
  auto loaded_inner = loaded.at("state_dict").toGenericDict();
  EXPECT_EQ(loaded_inner.at("name").toStringRef(), "linear");
  EXPECT_TRUE(torch::equal(loaded_inner.at("weight").toTensor(),
                           torch::arange(6, torch::kFloat32).reshape({2, 3})));
  EXPECT_EQ(loaded.at("steps").toIntVector(), (std::vector<int64_t>{1, 2, 3}));
  const auto& pair = loaded.at("pair").toTupleRef().elements();
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_EQ(pair[0].toInt(), 4);
  EXPECT_TRUE(torch::equal(pair[1].toTensor(), torch::ones({2}, torch::kInt64)));
  EXPECT_NO_THROW(io.teardown());
}

TEST_F(AsyncCheckpointIOTest, WritesTheValuesAsTheyWereWhenSaveReturned) {
  auto slow = std::make_shared<SlowCheckpointIO>(200ms);
  AsyncCheckpointIO io(slow);
  torch::nn::Linear linear(3, 2);  // parameters that require grad, as in a real state_dict
  torch::NoGradGuard no_grad;
  linear->weight.fill_(1.0);
  auto state = make_checkpoint_dict();
  state.insert("weight", linear->weight);
  auto steps = c10::List<int64_t>({1, 2});
  auto ckpt = make_checkpoint_dict();
  ckpt.insert("epoch", int64_t{1});
  ckpt.insert("state_dict", state);
  ckpt.insert("steps", steps);

  io.save_checkpoint(ckpt, path("a.ckpt"));
  // The next optimizer step, and a caller reusing its containers, while the write is pending.
  linear->weight.add_(41.0);
  ckpt.insert_or_assign("epoch", int64_t{2});
  state.insert_or_assign("extra", torch::zeros({1}));
  steps.push_back(3);
  ASSERT_TRUE(slow->events().empty()) << "the write must still be pending here";
  io.teardown();

  auto loaded = TorchCheckpointIO().load_checkpoint(path("a.ckpt"));
  EXPECT_EQ(loaded.at("epoch").toInt(), 1);
  auto loaded_state = loaded.at("state_dict").toGenericDict();
  EXPECT_EQ(loaded_state.size(), 1u);
  EXPECT_TRUE(torch::equal(loaded_state.at("weight").toTensor(), torch::ones({2, 3})));
  EXPECT_EQ(loaded.at("steps").toIntVector(), (std::vector<int64_t>{1, 2}));
  // The live tensors were not touched by the copy.
  EXPECT_TRUE(linear->weight.requires_grad());
  EXPECT_TRUE(torch::equal(linear->weight, torch::full({2, 3}, 42.0)));
}

TEST_F(AsyncCheckpointIOTest, TensorsSharingAStorageStillShareOneAndTheFileMatchesASyncSave) {
  auto base = torch::arange(10, torch::kFloat32);
  auto ckpt = make_checkpoint_dict();
  ckpt.insert("base", base);
  ckpt.insert("view", base.narrow(0, 2, 3));
  ckpt.insert("transposed", torch::arange(6, torch::kInt64).reshape({2, 3}).t());

  AsyncCheckpointIO io;
  io.save_checkpoint(ckpt, path("async.ckpt"));
  io.teardown();
  TorchCheckpointIO().save_checkpoint(ckpt, path("sync.ckpt"));

  auto loaded = TorchCheckpointIO().load_checkpoint(path("async.ckpt"));
  auto loaded_base = loaded.at("base").toTensor();
  auto loaded_view = loaded.at("view").toTensor();
  EXPECT_TRUE(torch::equal(loaded_view, torch::tensor({2.f, 3.f, 4.f})));
  EXPECT_EQ(loaded_view.storage().data(), loaded_base.storage().data());
  EXPECT_EQ(loaded_view.storage_offset(), 2);
  EXPECT_TRUE(
      torch::equal(loaded.at("transposed").toTensor(), torch::arange(6).reshape({2, 3}).t()));
  // Same storages, offsets and strides: the bytes a synchronous save writes.
  EXPECT_EQ(fs::file_size(path("async.ckpt")), fs::file_size(path("sync.ckpt")));
}

TEST_F(AsyncCheckpointIOTest, SaveRunsOnAnotherThreadAndReturnsBeforeTheWrite) {
  auto slow = std::make_shared<SlowCheckpointIO>(300ms);
  AsyncCheckpointIO io(slow);
  const auto start = std::chrono::steady_clock::now();
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  const auto blocked = std::chrono::steady_clock::now() - start;
  EXPECT_LT(blocked, 150ms);
  EXPECT_FALSE(fs::exists(path("a.ckpt")));
  io.wait();
  EXPECT_TRUE(fs::exists(path("a.ckpt")));
  ASSERT_EQ(slow->threads().size(), 1u);
  EXPECT_NE(slow->threads()[0], std::this_thread::get_id());
}

TEST_F(AsyncCheckpointIOTest, SaveThenRemoveOfTheSamePathLeavesNoFile) {
  auto slow = std::make_shared<SlowCheckpointIO>(200ms);
  AsyncCheckpointIO io(slow);
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  io.remove_checkpoint(path("a.ckpt"));
  io.wait();
  EXPECT_FALSE(fs::exists(path("a.ckpt")));
  EXPECT_THAT(slow->events(), ElementsAre("save a.ckpt", "remove a.ckpt"));
}

TEST_F(AsyncCheckpointIOTest, ManySavesInSequenceAllLandInOrder) {
  auto slow = std::make_shared<SlowCheckpointIO>(5ms);
  AsyncCheckpointIO io(slow);
  std::vector<std::string> expected;
  for (int64_t epoch = 0; epoch < 20; ++epoch) {
    const std::string name = "epoch=" + std::to_string(epoch) + ".ckpt";
    io.save_checkpoint(with_epoch(epoch), path(name));
    io.save_checkpoint(with_epoch(epoch), path("last.ckpt"));
    expected.push_back("save " + name);
    expected.push_back("save last.ckpt");
  }
  io.teardown();
  EXPECT_EQ(slow->events(), expected);
  for (int64_t epoch = 0; epoch < 20; ++epoch) {
    EXPECT_EQ(epoch_in(path("epoch=" + std::to_string(epoch) + ".ckpt")), epoch);
  }
  EXPECT_EQ(epoch_in(path("last.ckpt")), 19);
}

TEST_F(AsyncCheckpointIOTest, BackgroundFailureSurfacesAtTheNextSave) {
  AsyncCheckpointIO io;
  const std::string bad = unwritable_path();
  io.save_checkpoint(with_epoch(1), bad);  // fails later, on the background thread
  io.wait();
  try {
    io.save_checkpoint(with_epoch(2), path("b.ckpt"));
    ADD_FAILURE() << "the failed write must be reported";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save checkpoint " + bad + ": cannot create directory " +
                                    path("plain")));
  }
  io.wait();
  EXPECT_FALSE(fs::exists(path("b.ckpt"))) << "a call that raises must not have been carried out";
  // Reported once: the IO works again afterwards.
  io.save_checkpoint(with_epoch(3), path("c.ckpt"));
  EXPECT_NO_THROW(io.teardown());
  EXPECT_EQ(epoch_in(path("c.ckpt")), 3);
}

TEST_F(AsyncCheckpointIOTest, BackgroundFailureSurfacesAtTeardown) {
  auto slow = std::make_shared<SlowCheckpointIO>(100ms);
  AsyncCheckpointIO io(slow);
  const std::string bad = unwritable_path();
  io.save_checkpoint(with_epoch(1), bad);
  try {
    io.teardown();  // must wait for the failing write, not only check what has failed so far
    ADD_FAILURE() << "teardown must report the failed write";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save checkpoint " + bad));
  }
  EXPECT_NO_THROW(io.teardown());
}

TEST_F(AsyncCheckpointIOTest, BackgroundFailureSurfacesAtRemoveAndLoad) {
  AsyncCheckpointIO io;
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  io.save_checkpoint(with_epoch(1), unwritable_path());
  io.wait();
  EXPECT_THROW(io.remove_checkpoint(path("a.ckpt")), CheckpointError);
  io.wait();
  EXPECT_TRUE(fs::exists(path("a.ckpt")));  // the remove that raised did not run

  io.save_checkpoint(with_epoch(2), unwritable_path());
  EXPECT_THROW(io.load_checkpoint(path("a.ckpt")), CheckpointError);
  EXPECT_EQ(io.load_checkpoint(path("a.ckpt")).at("epoch").toInt(), 1);
}

TEST_F(AsyncCheckpointIOTest, LaterFailuresAreCountedAndForeignExceptionsNameThePath) {
  auto slow = std::make_shared<SlowCheckpointIO>(0ms);
  slow->fail_with = "disk on fire";
  AsyncCheckpointIO io(slow);
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  io.save_checkpoint(with_epoch(2), path("b.ckpt"));
  io.save_checkpoint(with_epoch(3), path("c.ckpt"));
  try {
    io.teardown();
    ADD_FAILURE() << "teardown must report the failed writes";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot save checkpoint " + path("a.ckpt") +
                                         ": disk on fire (and 2 later checkpoint operations "
                                         "failed too)");
  }
}

TEST_F(AsyncCheckpointIOTest, TeardownWaitsAndTheIOCanBeUsedAgain) {
  auto slow = std::make_shared<SlowCheckpointIO>(200ms);
  AsyncCheckpointIO io(slow);
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  io.teardown();
  EXPECT_TRUE(fs::exists(path("a.ckpt")));
  // A second fit with the same IO (the background thread starts again).
  io.save_checkpoint(with_epoch(2), path("b.ckpt"));
  io.teardown();
  EXPECT_EQ(epoch_in(path("b.ckpt")), 2);
}

TEST_F(AsyncCheckpointIOTest, LoadWaitsForPendingWrites) {
  auto slow = std::make_shared<SlowCheckpointIO>(200ms);
  AsyncCheckpointIO io(slow);
  io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  io.wait();
  io.save_checkpoint(with_epoch(2), path("a.ckpt"));
  EXPECT_EQ(io.load_checkpoint(path("a.ckpt")).at("epoch").toInt(), 2);
  EXPECT_THAT(slow->events(), ElementsAre("save a.ckpt", "save a.ckpt", "load a.ckpt"));
}

TEST_F(AsyncCheckpointIOTest, DestructorWaitsAndReportsAnUnreportedFailureOnStderr) {
  {
    AsyncCheckpointIO io(std::make_shared<SlowCheckpointIO>(200ms));
    io.save_checkpoint(with_epoch(1), path("a.ckpt"));
  }
  EXPECT_EQ(epoch_in(path("a.ckpt")), 1);

  const std::string bad = unwritable_path();
  ::testing::internal::CaptureStderr();
  {
    AsyncCheckpointIO io;
    io.save_checkpoint(with_epoch(1), bad);
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("fulgur: cannot save checkpoint " + bad));
}

TEST_F(AsyncCheckpointIOTest, TheNextSaveWritesOverTheHostBuffersOfTheLastFinishedOne) {
  auto recorder = std::make_shared<AddressRecordingIO>(/*keep=*/false);
  AsyncCheckpointIO io(recorder);
  auto w = torch::ones({1024});
  io.save_checkpoint(with_weight(w), path("a.ckpt"));
  io.wait();
  io.save_checkpoint(with_weight(w), path("b.ckpt"));
  io.wait();
  // Another size cannot reuse the buffer; teardown releases it.
  io.save_checkpoint(with_weight(torch::ones({2048})), path("c.ckpt"));
  io.teardown();
  ASSERT_EQ(recorder->addresses.size(), 3u);
  EXPECT_EQ(recorder->addresses[1], recorder->addresses[0]);
  EXPECT_NE(recorder->addresses[2], recorder->addresses[1]);
  EXPECT_NE(recorder->addresses[0], reinterpret_cast<std::uintptr_t>(w.data_ptr()));
}

TEST_F(AsyncCheckpointIOTest, ReusedHostBuffersNeverChangeWhatWasSavedBefore) {
  auto w = torch::full({4096}, 1.0f);
  {
    AsyncCheckpointIO io;
    for (float value : {1.0f, 2.0f, 3.0f}) {
      w.fill_(value);
      io.save_checkpoint(with_weight(w), path(fmt::format("{}.ckpt", value)));
      io.wait();
    }
    io.teardown();
  }
  for (float value : {1.0f, 2.0f, 3.0f}) {
    const auto loaded = TorchCheckpointIO().load_checkpoint(path(fmt::format("{}.ckpt", value)));
    EXPECT_TRUE(torch::equal(loaded.at("w").toTensor(), torch::full({4096}, value))) << value;
  }

  // A wrapped IO that keeps what it was given keeps it unchanged.
  auto keeper = std::make_shared<AddressRecordingIO>(/*keep=*/true);
  AsyncCheckpointIO io(keeper);
  for (float value : {1.0f, 2.0f}) {
    w.fill_(value);
    io.save_checkpoint(with_weight(w), path("kept.ckpt"));
    io.wait();
  }
  io.teardown();
  ASSERT_EQ(keeper->kept.size(), 2u);
  EXPECT_TRUE(torch::equal(keeper->kept[0].at("w").toTensor(), torch::full({4096}, 1.0f)));
  EXPECT_TRUE(torch::equal(keeper->kept[1].at("w").toTensor(), torch::full({4096}, 2.0f)));
  EXPECT_NE(keeper->addresses[1], keeper->addresses[0]);
}

}  // namespace
}  // namespace fulgur
