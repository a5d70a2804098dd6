// The Strategy base through SingleDeviceStrategy: parts, device placement, the Module's transfer
// hooks, steps under the precision's forward scope, backward and optimizer steps through the
// precision, identity collectives, checkpoint storage on rank 0 only, and the registry.
#include "fulgur/strategies/ddp.h"
#include "fulgur/strategies/single_device_strategy.h"

#include <c10/core/DefaultDtype.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/precision/double_precision.h"
#include "fulgur/strategies/strategy_registry.h"

namespace fulgur {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TinyModule : public Module {
 public:
  TinyModule() : Module("TinyModule") {
    linear = register_module("linear", torch::nn::Linear(2, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
    calls.push_back("training_step " + std::to_string(batch_idx));
    step_default_dtype = c10::get_default_dtype();
    return linear->forward(batch.data).sum();
  }
  void validation_step(Batch& batch, int64_t batch_idx) override {
    (void)batch;
    calls.push_back("validation_step " + std::to_string(batch_idx));
    step_default_dtype = c10::get_default_dtype();
  }
  void test_step(Batch& batch, int64_t batch_idx) override {
    (void)batch;
    calls.push_back("test_step " + std::to_string(batch_idx));
  }
  torch::Tensor predict_step(Batch& batch, int64_t batch_idx) override {
    calls.push_back("predict_step " + std::to_string(batch_idx));
    return batch.data * 2;
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }
  Batch on_before_batch_transfer(Batch batch, int64_t idx) override {
    calls.push_back("on_before_batch_transfer " + std::to_string(idx));
    batch.data = batch.data + 1;  // visible in the result: the hooks' outputs are threaded through
    return batch;
  }
  Batch transfer_batch_to_device(Batch batch, const torch::Device& device, int64_t idx) override {
    calls.push_back("transfer_batch_to_device " + device.str() + " " + std::to_string(idx));
    return Module::transfer_batch_to_device(std::move(batch), device, idx);
  }
  Batch on_after_batch_transfer(Batch batch, int64_t idx) override {
    calls.push_back("on_after_batch_transfer " + std::to_string(idx));
    batch.data = batch.data * 10;
    return batch;
  }

  torch::nn::Linear linear{nullptr};
  std::vector<std::string> calls;
  caffe2::TypeMeta step_default_dtype;
};

class RecordingAccelerator : public Accelerator {
 public:
  std::string name() const override { return "recording"; }
  bool is_available() const override { return true; }
  int auto_device_count() const override { return 1; }
  std::vector<int> parse_devices(const Devices&) const override { return {0}; }
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const override {
    return std::vector<c10::Device>(ids.size(), c10::Device(c10::kCPU));
  }
  void setup_device(const c10::Device& device) override { setups.push_back(device.str()); }
  void teardown() override { ++teardowns; }
  std::map<std::string, double> device_stats(const c10::Device&) const override { return {}; }

  std::vector<std::string> setups;
  int teardowns = 0;
};

class RecordingCheckpointIO : public CheckpointIO {
 public:
  std::string name() const override { return "RecordingCheckpointIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) override {
    saved.push_back(path);
    last = checkpoint;
  }
  CheckpointDict load_checkpoint(const std::string& path) override {
    loaded.push_back(path);
    auto d = make_checkpoint_dict();
    d.insert("epoch", int64_t{7});
    return d;
  }
  void remove_checkpoint(const std::string& path) override { removed.push_back(path); }
  void teardown() override { ++teardowns; }

  std::vector<std::string> saved, loaded, removed;
  CheckpointDict last = make_checkpoint_dict();
  int teardowns = 0;
};

// Counts the calls the Strategy routes to its precision.
class CountingPrecision : public Precision {
 public:
  torch::Tensor pre_backward(const torch::Tensor& loss) override {
    events.push_back("pre_backward");
    return loss * 3;  // as a grad scaler would
  }
  void backward(const torch::Tensor& loss, Module* module) override {
    events.push_back("backward");
    Precision::backward(loss, module);
  }
  torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                               const std::function<void()>& after_closure) override {
    events.push_back("optimizer_step");
    return Precision::optimizer_step(optimizer, closure, after_closure);
  }
  void clip_gradients(torch::optim::Optimizer& optimizer, double clip_val,
                      GradClipAlgorithm algorithm) override {
    events.push_back("clip " + to_string(algorithm) + " " + std::to_string(clip_val));
    Precision::clip_gradients(optimizer, clip_val, algorithm);
  }
  std::vector<std::string> events;
};

// Pretends to be a non-zero rank, to check that only rank 0 writes.
class RankOneStrategy : public SingleDeviceStrategy {
 public:
  int global_rank() const override { return 1; }
};

std::shared_ptr<SingleDeviceStrategy> make_strategy(std::shared_ptr<Precision> precision) {
  auto s = std::make_shared<SingleDeviceStrategy>();
  s->set_precision(std::move(precision));
  s->set_parallel_devices({c10::Device(c10::kCPU)});
  return s;
}

TEST(SingleDeviceStrategy, RootDeviceRules) {
  SingleDeviceStrategy plain;
  EXPECT_EQ(plain.name(), "single_device");
  EXPECT_EQ(plain.root_device().str(), "cpu");  // nothing set: the CPU
  plain.set_parallel_devices({c10::Device("cuda:1")});
  EXPECT_EQ(plain.root_device().str(), "cuda:1");  // the connector's device
  SingleDeviceStrategy pinned(c10::Device("cuda:3"));
  EXPECT_EQ(pinned.root_device().str(), "cuda:3");
  ASSERT_EQ(pinned.parallel_devices().size(), 1u);
  EXPECT_EQ(pinned.parallel_devices()[0].str(), "cuda:3");
  EXPECT_EQ(pinned.world_size(), 1);
  EXPECT_EQ(pinned.global_rank(), 0);
  EXPECT_TRUE(pinned.is_global_zero());
}

TEST(SingleDeviceStrategy, SettersStoreTheParts) {
  SingleDeviceStrategy s;
  auto acc = std::make_shared<RecordingAccelerator>();
  auto precision = std::make_shared<Precision>();
  auto io = std::make_shared<RecordingCheckpointIO>();
  s.set_accelerator(acc);
  s.set_precision(precision);
  s.set_checkpoint_io(io);
  s.set_num_nodes(2);
  EXPECT_EQ(s.accelerator(), acc);
  EXPECT_EQ(s.precision(), precision);
  EXPECT_EQ(s.checkpoint_io(), io);
  EXPECT_EQ(s.num_nodes(), 2);
  EXPECT_EQ(s.cluster_environment(), nullptr);
}

TEST(SingleDeviceStrategy, SetupEnvironmentAndTeardownReachTheParts) {
  auto s = make_strategy(std::make_shared<Precision>());
  auto acc = std::make_shared<RecordingAccelerator>();
  auto io = std::make_shared<RecordingCheckpointIO>();
  s->set_accelerator(acc);
  s->set_checkpoint_io(io);
  s->setup_environment();
  EXPECT_THAT(acc->setups, ElementsAre("cpu"));
  s->teardown();
  EXPECT_EQ(acc->teardowns, 1);
  EXPECT_EQ(io->teardowns, 1);
}

TEST(SingleDeviceStrategy, MissingPartsAreConfigErrors) {
  SingleDeviceStrategy s;
  TinyModule module;
  try {
    s.setup_environment();
    ADD_FAILURE() << "no accelerator must throw";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy \"single_device\" has no accelerator; build it through the "
                 "Trainer (the AcceleratorConnector fills it in) or call "
                 "set_accelerator()");
  }
  EXPECT_THROW(s.setup_module(module), ConfigError);
  EXPECT_THROW(s.save_checkpoint(make_checkpoint_dict(), "x.ckpt"), ConfigError);
}

TEST(SingleDeviceStrategy, SetupModuleConvertsThroughThePrecision) {
  auto s = make_strategy(std::make_shared<DoublePrecision>());
  TinyModule module;
  s->setup_module(module);
  for (const auto& p : module.parameters()) {
    EXPECT_EQ(p.scalar_type(), torch::kFloat64);
    EXPECT_TRUE(p.device().is_cpu());
  }
}

TEST(SingleDeviceStrategy, BatchToDeviceRunsTheThreeHooksInOrder) {
  auto s = make_strategy(std::make_shared<Precision>());
  TinyModule module;
  Batch batch{torch::ones({2, 2}), torch::tensor({0, 1})};
  auto out = s->batch_to_device(module, batch, 3);
  EXPECT_THAT(module.calls,
              ElementsAre("on_before_batch_transfer 3", "transfer_batch_to_device cpu 3",
                          "on_after_batch_transfer 3"));
  EXPECT_TRUE(torch::equal(out.data, torch::full({2, 2}, 20.0f)));
  EXPECT_EQ(out.data.scalar_type(), torch::kFloat32);
  EXPECT_EQ(out.target.scalar_type(), torch::kInt64);
}

TEST(SingleDeviceStrategy, BatchToDeviceConvertsFloatingInputsOnly) {
  auto s = make_strategy(std::make_shared<DoublePrecision>());
  TinyModule module;
  Batch batch{torch::ones({2, 2}), torch::tensor({0, 1})};
  auto out = s->batch_to_device(module, batch);
  EXPECT_EQ(out.data.scalar_type(), torch::kFloat64);
  EXPECT_EQ(out.target.scalar_type(), torch::kInt64);  // labels stay integers
  Batch regression{torch::ones({2, 2}), torch::ones({2})};
  EXPECT_EQ(s->batch_to_device(module, regression).target.scalar_type(), torch::kFloat64);
  Batch no_target{torch::ones({1, 2}), torch::Tensor()};
  EXPECT_FALSE(s->batch_to_device(module, no_target).target.defined());
}

TEST(SingleDeviceStrategy, StepsRunInsideThePrecisionsForwardScope) {
  auto s = make_strategy(std::make_shared<DoublePrecision>());
  TinyModule module;
  s->setup_module(module);
  Batch batch = s->batch_to_device(module, Batch{torch::ones({4, 2}), torch::zeros({4})});
  module.calls.clear();
  auto loss = s->training_step(module, batch, 5);
  EXPECT_EQ(module.step_default_dtype, caffe2::TypeMeta::Make<double>());
  EXPECT_EQ(loss.scalar_type(), torch::kFloat64);
  EXPECT_EQ(c10::get_default_dtype(), caffe2::TypeMeta::Make<float>());  // restored
  s->validation_step(module, batch, 6);
  EXPECT_EQ(module.step_default_dtype, caffe2::TypeMeta::Make<double>());
  s->test_step(module, batch, 7);
  auto predictions = s->predict_step(module, batch, 8);
  EXPECT_TRUE(torch::equal(predictions, batch.data * 2));
  EXPECT_THAT(module.calls,
              ElementsAre("training_step 5", "validation_step 6", "test_step 7", "predict_step 8"));
}

TEST(SingleDeviceStrategy, BackwardAndOptimizerStepGoThroughThePrecision) {
  auto precision = std::make_shared<CountingPrecision>();
  auto s = make_strategy(precision);
  auto w = torch::tensor({1.0, 2.0}, torch::requires_grad());
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.5));
  std::vector<std::string> order;
  auto loss = s->optimizer_step(
      sgd,
      [&] {
        order.push_back("closure");
        auto l = (w * w).sum();  // d/dw = 2w, scaled by 3 in pre_backward → 6w
        s->backward(l);
        return l;
      },
      [&] {
        order.push_back("after_closure");
        EXPECT_TRUE(torch::allclose(w.grad(), torch::tensor({6.0, 12.0}).to(w.dtype())));
        s->clip_gradients(sgd, 1.0, GradClipAlgorithm::Value);
      });
  EXPECT_THAT(order, ElementsAre("closure", "after_closure"));
  EXPECT_THAT(precision->events,
              ElementsAre("optimizer_step", "pre_backward", "backward", "clip value 1.000000"));
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  // Clipped to 1 per element, then w -= 0.5 * 1.
  EXPECT_TRUE(torch::allclose(w.detach(), torch::tensor({0.5, 1.5}).to(w.dtype())));
}

TEST(SingleDeviceStrategy, CollectivesAreTheIdentity) {
  SingleDeviceStrategy s;
  auto t = torch::tensor({1.0, 2.0});
  EXPECT_TRUE(s.reduce(t, ReduceOp::Sum).is_same(t));
  EXPECT_TRUE(s.reduce(t).is_same(t));
  auto gathered = s.all_gather(t);
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_TRUE(gathered[0].is_same(t));
  EXPECT_TRUE(s.broadcast(t, 0).is_same(t));
  EXPECT_EQ(s.broadcast(std::string("run-42")), "run-42");
  EXPECT_NO_THROW(s.barrier("sync"));
  EXPECT_TRUE(s.reduce_boolean_decision(true));
  EXPECT_FALSE(s.reduce_boolean_decision(false, /*all=*/false));
}

TEST(SingleDeviceStrategy, CheckpointsGoThroughTheCheckpointIO) {
  SingleDeviceStrategy s;
  auto io = std::make_shared<RecordingCheckpointIO>();
  s.set_checkpoint_io(io);
  auto d = make_checkpoint_dict();
  d.insert("global_step", int64_t{3});
  s.save_checkpoint(d, "a.ckpt");
  EXPECT_THAT(io->saved, ElementsAre("a.ckpt"));
  EXPECT_EQ(io->last.at("global_step").toInt(), 3);
  EXPECT_EQ(s.load_checkpoint("b.ckpt").at("epoch").toInt(), 7);
  EXPECT_THAT(io->loaded, ElementsAre("b.ckpt"));
  s.remove_checkpoint("c.ckpt");
  EXPECT_THAT(io->removed, ElementsAre("c.ckpt"));
}

TEST(SingleDeviceStrategy, OnlyRankZeroWritesButEveryRankReads) {
  RankOneStrategy s;
  auto io = std::make_shared<RecordingCheckpointIO>();
  s.set_checkpoint_io(io);
  EXPECT_FALSE(s.is_global_zero());
  s.save_checkpoint(make_checkpoint_dict(), "a.ckpt");
  s.remove_checkpoint("a.ckpt");
  EXPECT_TRUE(io->saved.empty());
  EXPECT_TRUE(io->removed.empty());
  s.load_checkpoint("a.ckpt");
  EXPECT_THAT(io->loaded, ElementsAre("a.ckpt"));
}

TEST(StrategyRegistry, SingleDeviceAndDdpNowTheRestLater) {
  auto& registry = strategy_registry();
  EXPECT_EQ(registry.create("single_device")->name(), "single_device");
  EXPECT_EQ(registry.create("ddp")->name(), "ddp");
  const auto unused = std::dynamic_pointer_cast<DDPStrategy>(
      registry.create("ddp_find_unused_parameters_true"));
  ASSERT_NE(unused, nullptr);
  EXPECT_TRUE(unused->options().find_unused_parameters);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"ddp", "ddp_find_unused_parameters_true",
                                                        "single_device"}));
  EXPECT_TRUE(registry.is_planned("fsdp"));
  try {
    registry.create("ddp_spawn");
    ADD_FAILURE() << "ddp_spawn is not available yet";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy=\"ddp_spawn\" is not available in this build of fulgur yet; "
                 "choose one of \"ddp\", \"ddp_find_unused_parameters_true\", "
                 "\"single_device\"");
  }
  try {
    registry.create("horovod");
    ADD_FAILURE() << "horovod is unknown";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy=\"horovod\" is not a known strategy; choose one of \"ddp\", "
                 "\"ddp_find_unused_parameters_true\", \"single_device\"");
  }
}

TEST(StrategyRegistry, UsersRegisterTheirOwn) {
  auto& registry = strategy_registry();
  registry.add("mine", [] { return std::make_shared<SingleDeviceStrategy>(); });
  EXPECT_TRUE(registry.contains("mine"));
  EXPECT_NE(registry.create("mine"), nullptr);
  registry.remove("mine");
  EXPECT_FALSE(registry.contains("mine"));
}

}  // namespace
}  // namespace fulgur
