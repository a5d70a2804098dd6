// The AcceleratorConnector against Lightning 2.x's flag resolution: every good combination
// yields the expected strategy, accelerator, devices and precision; every bad one raises a
// ConfigError naming the flag, the value and what is allowed.
#include "fulgur/connectors/accelerator_connector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "connectors/fake_accelerators.h"
#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/compat/autocast_scope.h"
#include "fulgur/environments/lightning_environment.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/launchers/subprocess_script_launcher.h"
#include "fulgur/precision/double_precision.h"
#include "fulgur/precision/mixed_precision.h"
#include "fulgur/strategies/single_device_strategy.h"
#include "fulgur/strategies/strategy_registry.h"
#include "scoped_env.h"

namespace fulgur {
namespace {

using testing::FakeGpuAccelerator;
using ::testing::HasSubstr;
using testing::ScopedFakeAccelerator;
using testing::ScopedFakeCuda;

// The ConfigError text the options raise, or "<no error>".
std::string error_of(ConnectorOptions options) {
  try {
    AcceleratorConnector connector(std::move(options));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

std::vector<std::string> device_strings(const Strategy& strategy) {
  std::vector<std::string> out;
  for (const auto& d : strategy.parallel_devices()) out.push_back(d.str());
  return out;
}

// A strategy that spans several devices, registered under a test name: lets the connector's
// device parsing be checked for multi-device flags before "ddp" exists.
class MultiDeviceStrategy : public Strategy {
 public:
  std::string name() const override { return "test_multi"; }
  c10::Device root_device() const override { return parallel_devices_.front(); }
};

class ScopedMultiStrategy {
 public:
  ScopedMultiStrategy() {
    strategy_registry().add("test_multi", [] { return std::make_shared<MultiDeviceStrategy>(); });
  }
  ~ScopedMultiStrategy() { strategy_registry().remove("test_multi"); }
};

class NamedPrecision : public Precision {
 public:
  explicit NamedPrecision(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

 private:
  std::string name_;
};

class NamedCheckpointIO : public TorchCheckpointIO {
 public:
  explicit NamedCheckpointIO(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

 private:
  std::string name_;
};

class NamedEnvironment : public LightningEnvironment {
 public:
  explicit NamedEnvironment(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

 private:
  std::string name_;
};

const char* kCpuDevicesHelp =
    "is not valid for accelerator=\"cpu\"; on the CPU, devices is the number of processes: use "
    "a positive integer (1, 2) or a string of digits (\"2\"), or \"auto\" (1)";
const char* kGpuDevicesHelp =
    "use a positive count (2), -1 for all, \"auto\", a string of ids (\"0,1\" or \"1,\") or a "
    "list of distinct ids ({0, 1})";
const char* kPrecisions =
    "\"16\", \"16-mixed\", \"16-true\", \"32\", \"32-true\", \"64\", \"64-true\", \"bf16\", "
    "\"bf16-mixed\", \"bf16-true\"";

// ---- defaults ----

TEST(AcceleratorConnector, DefaultsWithoutCudaAreOneCpuFullPrecision) {
  ScopedFakeCuda no_cuda(0, /*available=*/false);
  AcceleratorConnector c({});
  EXPECT_EQ(c.accelerator_name(), "cpu");
  EXPECT_EQ(c.strategy_name(), "single_device");
  EXPECT_EQ(c.precision_name(), "32-true");
  EXPECT_EQ(c.device_ids(), std::vector<int>{0});
  EXPECT_EQ(c.num_nodes(), 1);
  const auto& s = *c.strategy();
  EXPECT_NE(dynamic_cast<SingleDeviceStrategy*>(c.strategy().get()), nullptr);
  EXPECT_NE(dynamic_cast<CPUAccelerator*>(s.accelerator().get()), nullptr);
  EXPECT_EQ(s.precision()->name(), "32-true");
  EXPECT_EQ(s.checkpoint_io()->name(), "TorchCheckpointIO");
  EXPECT_EQ(s.cluster_environment()->name(), "LightningEnvironment");
  EXPECT_EQ(device_strings(s), std::vector<std::string>{"cpu"});
  EXPECT_EQ(s.root_device().str(), "cpu");
  EXPECT_EQ(s.num_nodes(), 1);
}

TEST(AcceleratorConnector, DefaultsOnThisMachineFollowTorchCudaAvailability) {
  if (torch::cuda::is_available()) {
    // devices="auto" takes every GPU; with one GPU that is single_device, with more it is ddp.
    if (torch::cuda::device_count() == 1) {
      AcceleratorConnector c({});
      EXPECT_EQ(c.accelerator_name(), "cuda");
      EXPECT_EQ(c.strategy()->root_device().str(), "cuda:0");
    } else {
      EXPECT_EQ(AcceleratorConnector({}).strategy_name(), "ddp");
    }
  } else {
    AcceleratorConnector c({});
    EXPECT_EQ(c.accelerator_name(), "cpu");
    EXPECT_EQ(c.strategy_name(), "single_device");
  }
}

TEST(AcceleratorConnector, AutoPicksCudaWhenAvailable) {
  ScopedFakeCuda cuda(1, /*available=*/true);
  AcceleratorConnector c({});
  EXPECT_EQ(c.accelerator_name(), "cuda");
  EXPECT_EQ(c.strategy_name(), "single_device");
  EXPECT_EQ(c.device_ids(), std::vector<int>{0});
  EXPECT_EQ(c.strategy()->root_device().str(), "cuda:0");
}

TEST(AcceleratorConnector, AutoWithSeveralGpusTakesAllWithDdp) {
  ScopedFakeCuda cuda(4, /*available=*/true);
  AcceleratorConnector all({});
  EXPECT_EQ(all.strategy_name(), "ddp");
  EXPECT_EQ(all.device_ids(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(all.strategy()->world_size(), 4);
  EXPECT_EQ(all.strategy()->root_device().str(), "cuda:0");  // local rank 0
  AcceleratorConnector one({.devices = 1});
  EXPECT_EQ(one.accelerator_name(), "cuda");
  EXPECT_EQ(one.device_ids(), std::vector<int>{0});
}

TEST(AcceleratorConnector, GpuAliasResolvesToCuda) {
  ScopedFakeCuda cuda(2, /*available=*/true);
  AcceleratorConnector c({.accelerator = "gpu", .devices = "1,"});
  EXPECT_EQ(c.accelerator_name(), "cuda");
  EXPECT_EQ(c.device_ids(), std::vector<int>{1});
  EXPECT_EQ(c.strategy()->root_device().str(), "cuda:1");
}

// ---- accelerator="cpu" ----

TEST(AcceleratorConnector, CpuWithOneDeviceInEveryForm) {
  for (Devices devices : {Devices(1), Devices("1"), Devices("auto")}) {
    AcceleratorConnector c({.accelerator = "cpu", .devices = devices});
    EXPECT_EQ(c.accelerator_name(), "cpu") << devices.to_string();
    EXPECT_EQ(c.strategy_name(), "single_device") << devices.to_string();
    EXPECT_EQ(c.device_ids(), std::vector<int>{0}) << devices.to_string();
    EXPECT_EQ(c.strategy()->root_device().str(), "cpu");
  }
}

TEST(AcceleratorConnector, CpuWithTwoProcessesIsDdpWithFulgursOwnLauncher) {
  AcceleratorConnector c({.accelerator = "cpu", .devices = 2});
  EXPECT_EQ(c.strategy_name(), "ddp");
  EXPECT_EQ(device_strings(*c.strategy()), (std::vector<std::string>{"cpu", "cpu"}));
  EXPECT_EQ(c.strategy()->world_size(), 2);
  EXPECT_NE(dynamic_cast<SubprocessScriptLauncher*>(c.strategy()->launcher()), nullptr);
  // Without going through the launcher, joining would wait for processes nobody starts.
  try {
    c.strategy()->setup_environment();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy=\"ddp\" with devices=2 and num_nodes=1 needs 2 processes: run it "
                 "through the Trainer (its launcher starts them) or start them with torchrun "
                 "(--nproc-per-node=2 --nnodes=1), srun or mpirun");
  }
}

TEST(AcceleratorConnector, OneProcessOrAnExternalLauncherNeedsNoLauncher) {
  EXPECT_EQ(AcceleratorConnector({.accelerator = "cpu", .devices = 1}).strategy()->launcher(),
            nullptr);
  testing::ScopedEnv torchrun({{"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"},
                               {"GROUP_RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"},
                               {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}});
  EXPECT_EQ(AcceleratorConnector({.accelerator = "cpu", .devices = 2}).strategy()->launcher(),
            nullptr);
}

TEST(AcceleratorConnector, TwoNodesAreDdp) {
  AcceleratorConnector c({.accelerator = "cpu", .devices = 1, .num_nodes = 2});
  EXPECT_EQ(c.strategy_name(), "ddp");
  EXPECT_EQ(c.strategy()->world_size(), 2);
}

TEST(AcceleratorConnector, CpuRejectsZeroNegativeTextAndLists) {
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = 0}),
            std::string("devices=0 ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = "0"}),
            std::string("devices=\"0\" ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = "abc"}),
            std::string("devices=\"abc\" ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = -2}),
            std::string("devices=-2 ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = -1}),
            std::string("devices=-1 ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = std::vector<int>{}}),
            std::string("devices=[] ") + kCpuDevicesHelp);
  EXPECT_EQ(error_of({.accelerator = "cpu", .devices = std::vector<int>{0, 1}}),
            std::string("devices=[0, 1] ") + kCpuDevicesHelp);
}

// ---- unknown and unavailable accelerators ----

TEST(AcceleratorConnector, UnknownAcceleratorListsTheChoices) {
  EXPECT_EQ(error_of({.accelerator = "tpu2"}),
            "accelerator=\"tpu2\" is not a known accelerator; choose one of \"auto\", \"cpu\", "
            "\"cuda\", \"gpu\"");
}

TEST(AcceleratorConnector, CudaAndGpuWithoutCudaSuggestCpuOrAuto) {
  ScopedFakeCuda no_cuda(0, /*available=*/false);
  for (const char* name : {"cuda", "gpu"}) {
    auto error = error_of({.accelerator = name});
    EXPECT_THAT(error, HasSubstr(std::string("accelerator=\"") + name +
                                 "\" was requested, but CUDA is not available"));
    EXPECT_THAT(error, HasSubstr("; use accelerator=\"cpu\" or accelerator=\"auto\""));
  }
}

TEST(AcceleratorConnector, RealCudaFlagMatchesThisMachine) {
  if (torch::cuda::is_available()) {
    AcceleratorConnector c({.accelerator = "cuda", .devices = 1});
    EXPECT_EQ(c.accelerator_name(), "cuda");
  } else {
    EXPECT_THAT(error_of({.accelerator = "gpu"}),
                HasSubstr("accelerator=\"gpu\" was requested, but CUDA is not available"));
  }
}

TEST(AcceleratorConnector, UnavailableAcceleratorInstanceIsRejected) {
  auto fake = std::make_shared<FakeGpuAccelerator>("npu", 2, /*available=*/false);
  EXPECT_EQ(error_of({.accelerator = fake}),
            "accelerator=<Accelerator instance \"npu\"> was requested, but npu is not available on "
            "this machine; use accelerator=\"cpu\" or accelerator=\"auto\"");
}

TEST(AcceleratorConnector, AcceleratorInstanceIsUsedAsIs) {
  auto cpu = std::make_shared<CPUAccelerator>();
  AcceleratorConnector c({.accelerator = cpu});
  EXPECT_EQ(c.strategy()->accelerator(), cpu);
  EXPECT_EQ(c.accelerator_name(), "cpu");
}

// ---- GPU-like device parsing through a registered fake accelerator with 4 devices ----

class FakeGpuConnector : public ::testing::Test {
 protected:
  ScopedFakeAccelerator gpu_{"fakegpu", 4};
  ScopedMultiStrategy multi_;

  std::vector<int> ids(Devices devices) {
    AcceleratorConnector c(
        {.accelerator = "fakegpu", .strategy = "test_multi", .devices = devices});
    EXPECT_EQ(c.accelerator_name(), "fakegpu");
    EXPECT_EQ(c.strategy_name(), "test_multi");
    std::vector<std::string> expected;
    for (int id : c.device_ids()) expected.push_back("cuda:" + std::to_string(id));
    EXPECT_EQ(device_strings(*c.strategy()), expected);
    return c.device_ids();
  }
  std::string error(Devices devices) {
    return error_of({.accelerator = "fakegpu", .strategy = "test_multi", .devices = devices});
  }
};

TEST_F(FakeGpuConnector, IdStringsCountsAndLists) {
  EXPECT_EQ(ids("0,1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(ids("1,"), (std::vector<int>{1}));
  EXPECT_EQ(ids("3"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(ids(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(ids(-1), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ids("-1"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ids(std::vector<int>{0, 1}), (std::vector<int>{0, 1}));
  EXPECT_EQ(ids(std::vector<int>{3, 1}), (std::vector<int>{3, 1}));
  EXPECT_EQ(ids("auto"), (std::vector<int>{0, 1, 2, 3}));
}

TEST_F(FakeGpuConnector, SingleGpuPicksSingleDeviceOnThatGpu) {
  AcceleratorConnector c({.accelerator = "fakegpu", .devices = "2,"});
  EXPECT_EQ(c.strategy_name(), "single_device");
  EXPECT_EQ(c.device_ids(), std::vector<int>{2});
  EXPECT_EQ(c.strategy()->root_device().str(), "cuda:2");
}

TEST_F(FakeGpuConnector, IdsTheMachineLacksNameWhatItHas) {
  EXPECT_EQ(error(std::vector<int>{1, 5}),
            "devices=[1, 5] asks for fakegpu device 5, but this machine has 4 fakegpu devices: "
            "[0, 1, 2, 3]");
  EXPECT_EQ(error(5),
            "devices=5 asks for 5 fakegpu devices, but this machine has 4 fakegpu devices: "
            "[0, 1, 2, 3]");
  EXPECT_EQ(error("0,4"),
            "devices=\"0,4\" asks for fakegpu device 4, but this machine has 4 fakegpu devices: "
            "[0, 1, 2, 3]");
}

TEST_F(FakeGpuConnector, ZeroEmptyNegativeGarbageAndDuplicatesAreRejected) {
  EXPECT_EQ(error(0), std::string("devices=0 selects no devices; ") + kGpuDevicesHelp);
  EXPECT_EQ(error("0"), std::string("devices=\"0\" selects no devices; ") + kGpuDevicesHelp);
  EXPECT_EQ(error(std::vector<int>{}),
            std::string("devices=[] selects no devices; ") + kGpuDevicesHelp);
  EXPECT_EQ(error(-2), std::string("devices=-2 is negative (only -1, meaning all, is allowed); ") +
                           kGpuDevicesHelp);
  EXPECT_EQ(error("abc"),
            std::string("devices=\"abc\" is not a number of devices nor a list of device ids; ") +
                kGpuDevicesHelp);
  EXPECT_EQ(error(std::vector<int>{1, 1}),
            "devices=[1, 1]: device ids must be unique, but 1 appears more than once; list each "
            "device once");
  EXPECT_THAT(error("0,0"), HasSubstr("must be unique"));
}

TEST_F(FakeGpuConnector, SingleDeviceStrategyRefusesTwoGpus) {
  EXPECT_EQ(error_of({.accelerator = "fakegpu", .strategy = "single_device", .devices = 2}),
            "strategy=\"single_device\" runs on exactly one device, but devices=2 (ids [0, 1]) "
            "with num_nodes=1 asks for 2; use devices=1 and num_nodes=1, or a multi-device "
            "strategy");
}

TEST_F(FakeGpuConnector, CustomStrategySpansNodes) {
  AcceleratorConnector c(
      {.accelerator = "fakegpu", .strategy = "test_multi", .devices = "0,1", .num_nodes = 3});
  EXPECT_EQ(c.num_nodes(), 3);
  EXPECT_EQ(c.strategy()->num_nodes(), 3);
  EXPECT_EQ(c.device_ids(), (std::vector<int>{0, 1}));
}

// ---- num_nodes ----

TEST(AcceleratorConnector, NumNodesMustBePositive) {
  EXPECT_EQ(error_of({.accelerator = "cpu", .num_nodes = 0}),
            "num_nodes=0 is not valid; num_nodes is the number of machines and must be >= 1");
  EXPECT_EQ(error_of({.accelerator = "cpu", .num_nodes = -1}),
            "num_nodes=-1 is not valid; num_nodes is the number of machines and must be >= 1");
}

// ---- precision ----

TEST(AcceleratorConnector, PrecisionNamesAndAliases) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"32", "32-true"}, {"32-true", "32-true"}, {"64", "64-true"}, {"64-true", "64-true"}};
  for (const auto& [flag, expected] : cases) {
    AcceleratorConnector c({.accelerator = "cpu", .precision = flag});
    EXPECT_EQ(c.precision_name(), expected) << flag;
    EXPECT_EQ(c.strategy()->precision()->name(), expected) << flag;
  }
  AcceleratorConnector doubled({.accelerator = "cpu", .precision = "64"});
  EXPECT_NE(dynamic_cast<DoublePrecision*>(doubled.strategy()->precision().get()), nullptr);
}

TEST(AcceleratorConnector, UnknownPrecisionListsTheChoices) {
  EXPECT_EQ(error_of({.accelerator = "cpu", .precision = "17"}),
            std::string("precision=\"17\" is not a known precision; choose one of ") + kPrecisions);
}

TEST(AcceleratorConnector, SixteenMixedOnTheCpuNeedsFloat16Autocast) {
  if (compat::AutocastScope::supports(c10::kCPU, torch::kHalf)) {
    EXPECT_EQ(AcceleratorConnector({.accelerator = "cpu", .precision = "16"}).precision_name(),
              "16-mixed");
    return;
  }
  for (const char* name : {"16-mixed", "16"}) {
    EXPECT_EQ(error_of({.accelerator = "cpu", .precision = name}),
              "precision=\"16-mixed\" cannot autocast on cpu with this LibTorch (its CPU "
              "autocast knows bfloat16 only); use \"bf16-mixed\"")
        << name;
  }
}

TEST(AcceleratorConnector, MixedPrecisionAutocastsOnTheAcceleratorsDevice) {
  AcceleratorConnector c({.accelerator = "cpu", .precision = "bf16-mixed"});
  const auto* mixed = dynamic_cast<const MixedPrecision*>(c.strategy()->precision().get());
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->device_type(), c10::kCPU);
  EXPECT_EQ(c.precision_name(), "bf16-mixed");
  EXPECT_EQ(AcceleratorConnector({.accelerator = "cpu", .precision = "bf16-true"}).precision_name(),
            "bf16-true");
}

TEST(AcceleratorConnector, SixteenTrueOnTheCpuNeedsFloat16Kernels) {
  if (compat::cpu_computes_float16()) {
    EXPECT_EQ(AcceleratorConnector({.accelerator = "cpu", .precision = "16-true"}).precision_name(),
              "16-true");
    return;
  }
  EXPECT_EQ(error_of({.accelerator = "cpu", .precision = "16-true"}),
            "precision=\"16-true\" needs float16 matrix products and convolutions on the CPU, "
            "which this LibTorch lacks (they came in 2.1); use \"bf16-true\" or \"bf16-mixed\"");
}

TEST(AcceleratorConnector, PrecisionInstanceIsUsedAsIs) {
  auto precision = std::make_shared<NamedPrecision>("my-precision");
  AcceleratorConnector c({.accelerator = "cpu", .precision = precision});
  EXPECT_EQ(c.strategy()->precision(), precision);
  EXPECT_EQ(c.precision_name(), "my-precision");
}

TEST(AcceleratorConnector, PrecisionPluginIsUsed) {
  auto precision = std::make_shared<DoublePrecision>();
  AcceleratorConnector c({.accelerator = "cpu", .plugins = {precision}});
  EXPECT_EQ(c.strategy()->precision(), precision);
  EXPECT_EQ(c.precision_name(), "64-true");
}

TEST(AcceleratorConnector, PrecisionNameAndPluginConflict) {
  std::shared_ptr<Precision> plugin = std::make_shared<DoublePrecision>();
  EXPECT_EQ(error_of({.accelerator = "cpu", .precision = "64-true", .plugins = {plugin}}),
            "Received both precision=\"64-true\" and a Precision plugin (\"64-true\") in plugins; "
            "choose one");
  EXPECT_EQ(error_of({.accelerator = "cpu",
                      .precision = std::make_shared<NamedPrecision>("mine"),
                      .plugins = {plugin}}),
            "Received both precision=<Precision instance \"mine\"> and a Precision plugin "
            "(\"64-true\") in plugins; choose one");
}

// ---- plugins ----

TEST(AcceleratorConnector, TwoPluginsOfOneKindConflict) {
  std::shared_ptr<Precision> p32 = std::make_shared<Precision>();
  std::shared_ptr<Precision> p64 = std::make_shared<DoublePrecision>();
  EXPECT_EQ(error_of({.accelerator = "cpu", .plugins = {p32, p64}}),
            "plugins holds 2 Precision plugins (\"32-true\", \"64-true\"); give at most one");
  std::shared_ptr<CheckpointIO> io1 = std::make_shared<TorchCheckpointIO>();
  std::shared_ptr<CheckpointIO> io2 = std::make_shared<NamedCheckpointIO>("Other");
  EXPECT_EQ(error_of({.accelerator = "cpu", .plugins = {io1, io2}}),
            "plugins holds 2 CheckpointIO plugins (\"TorchCheckpointIO\", \"Other\"); give at "
            "most one");
  std::shared_ptr<ClusterEnvironment> env1 = std::make_shared<LightningEnvironment>();
  std::shared_ptr<ClusterEnvironment> env2 = std::make_shared<NamedEnvironment>("Slurmish");
  EXPECT_EQ(error_of({.accelerator = "cpu", .plugins = {env1, env2}}),
            "plugins holds 2 ClusterEnvironment plugins (\"LightningEnvironment\", \"Slurmish\"); "
            "give at most one");
}

TEST(AcceleratorConnector, CheckpointIOAndEnvironmentPluginsSlotIntoTheStrategy) {
  std::shared_ptr<CheckpointIO> io = std::make_shared<NamedCheckpointIO>("MyIO");
  std::shared_ptr<ClusterEnvironment> env = std::make_shared<NamedEnvironment>("MyEnv");
  AcceleratorConnector c({.accelerator = "cpu", .plugins = {io, env}});
  EXPECT_EQ(c.strategy()->checkpoint_io(), io);
  EXPECT_EQ(c.strategy()->cluster_environment(), env);
  EXPECT_EQ(c.precision_name(), "32-true");
}

// ---- strategy ----

TEST(AcceleratorConnector, UnknownStrategyListsTheChoices) {
  EXPECT_EQ(error_of({.strategy = "fancy"}),
            "strategy=\"fancy\" is not a known strategy; choose one of \"auto\", \"ddp\", "
            "\"ddp_find_unused_parameters_true\", \"single_device\"");
}

TEST(AcceleratorConnector, OtherMultiProcessStrategiesAreNotAvailableYet) {
  for (const char* name : {"ddp_spawn", "fsdp", "deepspeed"}) {
    EXPECT_EQ(error_of({.accelerator = "cpu", .strategy = name}),
              std::string("strategy=\"") + name +
                  "\" is not available in this build of fulgur yet; choose one of \"auto\", "
                  "\"ddp\", \"ddp_find_unused_parameters_true\", \"single_device\"");
  }
}

TEST(AcceleratorConnector, NamedSingleDeviceOnCpu) {
  AcceleratorConnector c({.accelerator = "cpu", .strategy = "single_device", .devices = "1"});
  EXPECT_EQ(c.strategy_name(), "single_device");
  EXPECT_EQ(c.strategy()->root_device().str(), "cpu");
}

TEST(AcceleratorConnector, StrategyInstanceGetsItsMissingPartsFilled) {
  auto strategy = std::make_shared<SingleDeviceStrategy>();
  AcceleratorConnector c({.accelerator = "cpu", .strategy = strategy, .precision = "64"});
  EXPECT_EQ(c.strategy(), strategy);
  EXPECT_EQ(c.strategy_name(), "single_device");
  EXPECT_EQ(strategy->accelerator()->name(), "cpu");
  EXPECT_EQ(strategy->precision()->name(), "64-true");
  EXPECT_EQ(strategy->checkpoint_io()->name(), "TorchCheckpointIO");
  EXPECT_EQ(strategy->cluster_environment()->name(), "LightningEnvironment");
  EXPECT_EQ(device_strings(*strategy), std::vector<std::string>{"cpu"});
}

TEST(AcceleratorConnector, StrategyInstanceKeepsItsOwnParts) {
  auto strategy = std::make_shared<SingleDeviceStrategy>();
  auto precision = std::make_shared<DoublePrecision>();
  auto io = std::make_shared<NamedCheckpointIO>("Mine");
  strategy->set_precision(precision);
  strategy->set_checkpoint_io(io);
  AcceleratorConnector c({.accelerator = "cpu", .strategy = strategy});
  EXPECT_EQ(strategy->precision(), precision);
  EXPECT_EQ(strategy->checkpoint_io(), io);
  EXPECT_EQ(c.precision_name(), "64-true");
}

TEST(AcceleratorConnector, StrategyInstancePartsConflictWithFlags) {
  auto with_precision = std::make_shared<SingleDeviceStrategy>();
  with_precision->set_precision(std::make_shared<Precision>());
  EXPECT_EQ(error_of({.accelerator = "cpu", .strategy = with_precision, .precision = "64"}),
            "precision=\"64\" was given, but the strategy instance already has a precision plugin "
            "(\"32-true\"); set it in one place only: either on the strategy or through the "
            "flag/plugins");
  auto with_accelerator = std::make_shared<SingleDeviceStrategy>();
  with_accelerator->set_accelerator(std::make_shared<CPUAccelerator>());
  EXPECT_THAT(error_of({.accelerator = "cpu", .strategy = with_accelerator}),
              HasSubstr("accelerator=\"cpu\" was given, but the strategy instance already has an "
                        "accelerator (\"cpu\")"));
  auto with_io = std::make_shared<SingleDeviceStrategy>();
  with_io->set_checkpoint_io(std::make_shared<TorchCheckpointIO>());
  std::shared_ptr<CheckpointIO> io = std::make_shared<NamedCheckpointIO>("Other");
  EXPECT_EQ(error_of({.accelerator = "cpu", .strategy = with_io, .plugins = {io}}),
            "plugins=[CheckpointIO \"Other\"] was given, but the strategy instance already has "
            "a checkpoint IO (\"TorchCheckpointIO\"); set it in one place only: either on the "
            "strategy or through the flag/plugins");
}

TEST(AcceleratorConnector, StrategyInstanceDevicesPickTheAccelerator) {
  ScopedFakeCuda cuda(4, /*available=*/true);
  auto strategy = std::make_shared<SingleDeviceStrategy>(c10::Device("cuda:2"));
  AcceleratorConnector c({.strategy = strategy});
  EXPECT_EQ(c.accelerator_name(), "cuda");
  EXPECT_EQ(c.device_ids(), std::vector<int>{2});
  EXPECT_EQ(strategy->root_device().str(), "cuda:2");

  auto on_cpu = std::make_shared<SingleDeviceStrategy>(c10::Device(c10::kCPU));
  EXPECT_EQ(error_of({.accelerator = "cuda", .strategy = on_cpu}),
            "accelerator=\"cuda\" does not match the strategy instance's devices (cpu, which need "
            "accelerator=\"cpu\"); use accelerator=\"cpu\" or \"auto\"");
}

TEST(AcceleratorConnector, CustomRegisteredAcceleratorAndStrategy) {
  ScopedFakeAccelerator npu("npu", 2);
  ScopedMultiStrategy multi;
  AcceleratorConnector c({.accelerator = "npu", .strategy = "test_multi", .devices = -1});
  EXPECT_EQ(c.accelerator_name(), "npu");
  EXPECT_EQ(c.strategy_name(), "test_multi");
  EXPECT_EQ(c.device_ids(), (std::vector<int>{0, 1}));
  // While registered they appear in the choices; "auto" always does.
  EXPECT_EQ(error_of({.strategy = "nope"}),
            "strategy=\"nope\" is not a known strategy; choose one of \"auto\", \"ddp\", "
            "\"ddp_find_unused_parameters_true\", \"single_device\", \"test_multi\"");
  EXPECT_THAT(error_of({.accelerator = "tpu"}), HasSubstr("\"gpu\", \"npu\""));
}

}  // namespace
}  // namespace fulgur
