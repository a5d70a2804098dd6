// Batches copied on the accelerator's copy stream (CUDAAcceleratorOptions::copy_stream): the
// transfer hook runs with that stream current, the compute stream then waits for the copy
// through an event, the hook after the transfer runs on the compute stream, and the compute
// stream is current again afterwards, also when the transfer throws. The device here is a
// stand-in: c10's PrivateUse1 device type with a stream interface that logs what it is asked.
// Strategy::copy_to_device, which Fabric's loaders use, does the same for any transfer.
// tests/cuda/ checks the same on a GPU, with real copies.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/module.h"
#include "fulgur/precision/precision.h"
#include "fulgur/strategies/single_device_strategy.h"

namespace fulgur {
namespace {

using ::testing::ElementsAre;

constexpr c10::DeviceType kStandIn = c10::DeviceType::PrivateUse1;
const c10::Device kDevice(kStandIn, 0);
constexpr c10::StreamId kCopyStream = 7;

// Streams of the stand-in device: which one is current, and each event call, in order.
class StreamLog final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return kStandIn; }
  c10::Device exchangeDevice(c10::Device d) const override { return d; }
  c10::Device getDevice() const override { return kDevice; }
  void setDevice(c10::Device) const override {}
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::UNSAFE, d, current_);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    const c10::Stream previous(c10::Stream::UNSAFE, s.device(), current_);
    current_ = s.id();
    return previous;
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex,
              const c10::EventFlag) const override {
    static int token;
    *event = &token;
    calls.push_back("record on " + std::to_string(stream.id()));
  }
  void block(void*, const c10::Stream& stream) const override {
    calls.push_back("block " + std::to_string(stream.id()));
  }
  void destroyEvent(void*, const c10::DeviceIndex) const noexcept override {}

  c10::StreamId current() const { return current_; }
  void reset() const {
    current_ = 0;
    calls.clear();
  }

  mutable std::vector<std::string> calls;

 private:
  mutable c10::StreamId current_ = 0;
};

const StreamLog& stream_log() {
  static const StreamLog* log = [] {
    auto* impl = new StreamLog();  // c10's registry keeps it for the process's lifetime
    static c10::impl::DeviceGuardImplRegistrar registered(kStandIn, impl);
    return impl;
  }();
  return *log;
}

class StandInAccelerator : public Accelerator {
 public:
  explicit StandInAccelerator(bool copy_stream) : copy_stream_(copy_stream) {}
  std::string name() const override { return "stand-in"; }
  bool is_available() const override { return true; }
  int auto_device_count() const override { return 1; }
  std::vector<int> parse_devices(const Devices&) const override { return {0}; }
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>&) const override {
    return {kDevice};
  }
  void setup_device(const c10::Device&) override {}
  std::map<std::string, double> device_stats(const c10::Device&) const override { return {}; }
  std::optional<c10::Stream> copy_stream(const c10::Device& device) override {
    if (!copy_stream_) return std::nullopt;
    return c10::Stream(c10::Stream::UNSAFE, device, kCopyStream);
  }

 private:
  bool copy_stream_;
};

// Logs the stand-in device's current stream in each transfer hook; leaves the batch on the CPU
// (the stand-in holds no memory).
class StreamWatchingModule : public Module {
 public:
  StreamWatchingModule() : Module("StreamWatchingModule") {}
  Batch on_before_batch_transfer(Batch batch, int64_t) override {
    seen.push_back("before on " + std::to_string(stream_log().current()));
    return batch;
  }
  Batch transfer_batch_to_device(Batch batch, const torch::Device& device, int64_t) override {
    seen.push_back("transfer to " + std::string(device == kDevice ? "the device" : device.str()) +
                   " on " + std::to_string(stream_log().current()));
    if (throw_in_transfer) throw std::runtime_error("transfer failed");
    batch.data = batch.data + 1;
    return batch;
  }
  Batch on_after_batch_transfer(Batch batch, int64_t) override {
    seen.push_back("after on " + std::to_string(stream_log().current()));
    return batch;
  }
  torch::Tensor training_step(Batch&, int64_t) override { return {}; }
  OptimizerConfig configure_optimizers() override { return {}; }

  std::vector<std::string> seen;
  bool throw_in_transfer = false;
};

std::shared_ptr<SingleDeviceStrategy> strategy_on_stand_in(bool copy_stream) {
  stream_log().reset();
  auto s = std::make_shared<SingleDeviceStrategy>(kDevice);
  s->set_accelerator(std::make_shared<StandInAccelerator>(copy_stream));
  s->set_precision(std::make_shared<Precision>());
  return s;
}

Batch a_batch() { return {torch::zeros({2, 3}), torch::ones({2})}; }

TEST(CopyStream, TheTransferRunsOnTheCopyStreamAndTheComputeStreamWaitsForIt) {
  auto strategy = strategy_on_stand_in(/*copy_stream=*/true);
  StreamWatchingModule module;
  const Batch batch = strategy->batch_to_device(module, a_batch(), 0);

  EXPECT_THAT(module.seen, ElementsAre("before on 0", "transfer to the device on 7", "after on 0"));
  EXPECT_THAT(stream_log().calls, ElementsAre("record on 7", "block 0"));
  EXPECT_EQ(stream_log().current(), 0);
  EXPECT_TRUE(torch::equal(batch.data, torch::ones({2, 3})));  // the transfer's result is kept
}

TEST(CopyStream, WithoutOneEverythingRunsOnTheComputeStreamAndNoEventIsUsed) {
  auto strategy = strategy_on_stand_in(/*copy_stream=*/false);
  StreamWatchingModule module;
  strategy->batch_to_device(module, a_batch(), 0);

  EXPECT_THAT(module.seen, ElementsAre("before on 0", "transfer to the device on 0", "after on 0"));
  EXPECT_TRUE(stream_log().calls.empty());
}

TEST(CopyStream, AFailedTransferLeavesTheComputeStreamCurrent) {
  auto strategy = strategy_on_stand_in(/*copy_stream=*/true);
  StreamWatchingModule module;
  module.throw_in_transfer = true;
  EXPECT_THROW(strategy->batch_to_device(module, a_batch(), 0), std::runtime_error);
  EXPECT_EQ(stream_log().current(), 0);
  EXPECT_TRUE(stream_log().calls.empty()) << "no event for a copy that never happened";
}

// Fabric's loaders move batches through copy_to_device (a GPU test checks Fabric itself).
TEST(CopyStream, CopyToDeviceRunsAnyTransferOnTheCopyStream) {
  auto strategy = strategy_on_stand_in(/*copy_stream=*/true);
  std::vector<c10::StreamId> ran_on;
  const Batch batch = strategy->copy_to_device([&] {
    ran_on.push_back(stream_log().current());
    return a_batch();
  });
  EXPECT_THAT(ran_on, ElementsAre(kCopyStream));
  EXPECT_THAT(stream_log().calls, ElementsAre("record on 7", "block 0"));
  EXPECT_EQ(stream_log().current(), 0);
  EXPECT_TRUE(torch::equal(batch.target, torch::ones({2})));

  auto without = strategy_on_stand_in(/*copy_stream=*/false);
  without->copy_to_device([&] {
    ran_on.push_back(stream_log().current());
    return a_batch();
  });
  EXPECT_THAT(ran_on, ElementsAre(kCopyStream, 0));
  EXPECT_TRUE(stream_log().calls.empty());
}

TEST(CopyStream, OnlyTheCudaAcceleratorWithTheKnobOnHasOne) {
  const c10::Device gpu(c10::kCUDA, 0);
  EXPECT_FALSE(CPUAccelerator().copy_stream(c10::Device(c10::kCPU)).has_value());
  EXPECT_FALSE(CUDAAccelerator().copy_stream(gpu).has_value()) << "off by default";
  CUDAAccelerator with_knob(CUDAAcceleratorOptions{.copy_stream = true});
  EXPECT_TRUE(with_knob.options().copy_stream);
  EXPECT_FALSE(with_knob.copy_stream(c10::Device(c10::kCPU)).has_value())
      << "a CPU device has no copy engine";
}

}  // namespace
}  // namespace fulgur
