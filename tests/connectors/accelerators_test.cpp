// The accelerators on their own: the GPU device parser, the CPU accelerator's process counts,
// the CUDA accelerator's facts on this machine, the `devices` flag's spelling in messages, and
// the accelerator registry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "fulgur/accelerators/accelerator_registry.h"
#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/accelerators/device_parser.h"
#include "fulgur/compat/cuda_device.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;

std::string parse_error(const Devices& devices, int available = 4) {
  try {
    parse_gpu_ids(devices, available, "cuda");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Devices, SpellsTheFlagAsWritten) {
  EXPECT_EQ(Devices().to_string(), "\"auto\"");
  EXPECT_TRUE(Devices().is_auto());
  EXPECT_FALSE(Devices("0,1").is_auto());
  EXPECT_EQ(Devices(2).to_string(), "2");
  EXPECT_EQ(Devices("0,1").to_string(), "\"0,1\"");
  EXPECT_EQ(Devices(std::vector<int>{0, 1}).to_string(), "[0, 1]");
  EXPECT_EQ(Devices(std::vector<int>{}).to_string(), "[]");
}

TEST(ParseGpuIds, LightningsAcceptedForms) {
  EXPECT_EQ(parse_gpu_ids(2, 4, "cuda"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_gpu_ids(-1, 4, "cuda"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_gpu_ids("-1", 4, "cuda"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_gpu_ids("0,1", 4, "cuda"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_gpu_ids("1,", 4, "cuda"), (std::vector<int>{1}));
  EXPECT_EQ(parse_gpu_ids(" 2 , 3 ", 4, "cuda"), (std::vector<int>{2, 3}));
  EXPECT_EQ(parse_gpu_ids("3", 4, "cuda"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_gpu_ids(std::vector<int>{0, 1}, 4, "cuda"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_gpu_ids(std::vector<int>{3}, 4, "cuda"), (std::vector<int>{3}));
  EXPECT_EQ(parse_gpu_ids("auto", 2, "cuda"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_gpu_ids(4, 4, "cuda"), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ParseGpuIds, RejectsNothingSelected) {
  EXPECT_THAT(parse_error(0), HasSubstr("devices=0 selects no devices; use a positive count"));
  EXPECT_THAT(parse_error("0"), HasSubstr("devices=\"0\" selects no devices"));
  EXPECT_THAT(parse_error(std::vector<int>{}), HasSubstr("devices=[] selects no devices"));
  EXPECT_THAT(parse_error(","), HasSubstr("devices=\",\" selects no devices"));
}

TEST(ParseGpuIds, RejectsDuplicates) {
  EXPECT_EQ(parse_error(std::vector<int>{0, 2, 0}),
            "devices=[0, 2, 0]: device ids must be unique, but 0 appears more than once; list "
            "each device once");
  EXPECT_THAT(parse_error("1,1"), HasSubstr("must be unique"));
}

TEST(ParseGpuIds, NamesWhatTheMachineHas) {
  EXPECT_EQ(parse_error(std::vector<int>{1, 5}),
            "devices=[1, 5] asks for cuda device 5, but this machine has 4 cuda devices: "
            "[0, 1, 2, 3]");
  EXPECT_EQ(parse_error(3, 1),
            "devices=3 asks for 3 cuda devices, but this machine has 1 cuda device: [0]");
  EXPECT_EQ(parse_error(-1, 0),
            "devices=-1 asks for every cuda device, but this machine has no cuda devices");
  EXPECT_EQ(parse_error(1, 0),
            "devices=1 asks for 1 cuda device, but this machine has no cuda devices");
}

TEST(ParseGpuIds, RejectsGarbageAndNegatives) {
  EXPECT_THAT(parse_error("abc"),
              HasSubstr("devices=\"abc\" is not a number of devices nor a list of device ids"));
  EXPECT_THAT(parse_error("0,x"),
              HasSubstr("devices=\"0,x\" holds \"x\", which is not a device id"));
  EXPECT_THAT(parse_error("1.5"), HasSubstr("is not a number of devices"));
  EXPECT_THAT(parse_error(""), HasSubstr("is not a number of devices"));
  EXPECT_THAT(parse_error(-2),
              HasSubstr("devices=-2 is negative (only -1, meaning all, is allowed)"));
  EXPECT_THAT(parse_error("-3"), HasSubstr("devices=\"-3\" is negative"));
  EXPECT_THAT(parse_error(std::vector<int>{0, -1}), HasSubstr("holds the negative id -1"));
}

TEST(CPUAccelerator, DevicesAreProcessCounts) {
  CPUAccelerator cpu;
  EXPECT_EQ(cpu.name(), "cpu");
  EXPECT_TRUE(cpu.is_available());
  EXPECT_EQ(cpu.auto_device_count(), 1);
  EXPECT_EQ(cpu.parse_devices(1), std::vector<int>{0});
  EXPECT_EQ(cpu.parse_devices("3"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(cpu.parse_devices("auto"), std::vector<int>{0});
  for (Devices bad : {Devices(0), Devices(-1), Devices("0"), Devices("-1"), Devices("0,1"),
                      Devices("x"), Devices(std::vector<int>{0})}) {
    EXPECT_THROW(cpu.parse_devices(bad), ConfigError) << bad.to_string();
  }
  auto devices = cpu.get_parallel_devices({0, 1});
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_TRUE(devices[0].is_cpu());
  EXPECT_TRUE(devices[1].is_cpu());
}

TEST(CPUAccelerator, SetupAndStats) {
  CPUAccelerator cpu;
  EXPECT_NO_THROW(cpu.setup_device(c10::Device(c10::kCPU)));
  EXPECT_THROW(cpu.setup_device(c10::Device("cuda:0")), ConfigError);
  auto stats = cpu.device_stats(c10::Device(c10::kCPU));
  ASSERT_EQ(stats.count("cpu_rss_bytes"), 1u);
  EXPECT_GT(stats["cpu_rss_bytes"], 1024.0 * 1024.0);  // a LibTorch process holds megabytes
  EXPECT_GE(stats["cpu_peak_rss_bytes"], stats["cpu_rss_bytes"]);
}

TEST(CUDAAccelerator, ReportsWhatLibTorchSees) {
  CUDAAccelerator cuda;
  EXPECT_EQ(cuda.name(), "cuda");
  EXPECT_EQ(cuda.is_available(), torch::cuda::is_available());
  EXPECT_EQ(cuda.auto_device_count(), static_cast<int>(torch::cuda::device_count()));
  auto devices = cuda.get_parallel_devices({1, 3});
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].str(), "cuda:1");
  EXPECT_EQ(devices[1].str(), "cuda:3");
  EXPECT_THROW(cuda.setup_device(c10::Device(c10::kCPU)), ConfigError);
  if (cuda.auto_device_count() == 0) {
    EXPECT_THAT(parse_error(1, 0), HasSubstr("this machine has no cuda devices"));
    try {
      cuda.parse_devices(1);
      ADD_FAILURE() << "parse_devices(1) without GPUs must throw";
    } catch (const ConfigError& e) {
      EXPECT_STREQ(e.what(),
                   "devices=1 asks for 1 cuda device, but this machine has no cuda "
                   "devices");
    }
  } else {
    EXPECT_EQ(cuda.parse_devices(1), std::vector<int>{0});
    cuda.setup_device(c10::Device("cuda:0"));
    auto stats = cuda.device_stats(c10::Device("cuda:0"));
    EXPECT_EQ(stats.count("allocated_bytes.all.current"), 1u);
    EXPECT_EQ(stats.count("reserved_bytes.all.current"), 1u);
  }
  if (!compat::built_with_cuda()) {
    EXPECT_THROW(cuda.setup_device(c10::Device("cuda:0")), ConfigError);
    EXPECT_TRUE(cuda.device_stats(c10::Device("cuda:0")).empty());
  }
}

TEST(AcceleratorRegistry, KnowsCpuCudaAndTheGpuAlias) {
  auto& registry = accelerator_registry();
  EXPECT_TRUE(registry.contains("cpu"));
  EXPECT_TRUE(registry.contains("cuda"));
  EXPECT_TRUE(registry.contains("gpu"));
  EXPECT_FALSE(registry.contains("auto"));  // the connector resolves it
  EXPECT_EQ(registry.canonical_name("gpu"), "cuda");
  EXPECT_EQ(registry.create("gpu")->name(), "cuda");
  EXPECT_EQ(registry.create("cpu")->name(), "cpu");
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"cpu", "cuda", "gpu"}));
  EXPECT_THROW(registry.create("tpu"), ConfigError);
}

}  // namespace
}  // namespace fulgur
