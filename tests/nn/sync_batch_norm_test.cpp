// fulgur::nn::SyncBatchNorm: plain batch norm (LibTorch's numbers) until synchronised; with a
// strategy of two ranks it normalizes over both ranks' samples; sync_batchnorm=true attaches it
// under a parallel strategy only and refuses LibTorch's own BatchNorm layers by name.
#include "fulgur/nn/sync_batch_norm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/errors.h"
#include "fulgur/layer_sync/torch_sync_batch_norm.h"
#include "fulgur/strategies/parallel_strategy.h"
#include "fulgur/strategies/single_device_strategy.h"

namespace fulgur {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> keys(const auto& dict) {
  std::vector<std::string> out;
  for (const auto& item : dict) out.push_back(item.key());
  return out;
}

// Two ranks that hold the same samples: every gather gives this rank's tensor twice and every
// sum doubles, so statistics equal one rank's own, except the running variance, which is
// unbiased over twice the samples.
class MirroredTwoRanks : public SingleDeviceStrategy {
 public:
  int world_size() const override { return 2; }
  std::vector<torch::Tensor> all_gather(const torch::Tensor& tensor) override {
    ++gathers;
    return {tensor.clone(), tensor.clone()};
  }
  torch::Tensor reduce(const torch::Tensor& tensor, ReduceOp op) override {
    EXPECT_EQ(op, ReduceOp::Sum);
    ++reduces;
    return tensor * 2;
  }
  int gathers = 0, reduces = 0;
};

TEST(SyncBatchNorm, UnsynchronisedItIsLibTorchsBatchNormInTrainingAndEvaluation) {
  for (const bool cumulative : {false, true}) {
    auto options = torch::nn::BatchNormOptions(3);
    if (cumulative) options.momentum(c10::nullopt);
    torch::manual_seed(1);
    nn::SyncBatchNorm ours(options);
    torch::nn::BatchNorm2d theirs(options);
    {
      torch::NoGradGuard no_grad;
      ours->weight.copy_(torch::tensor({0.5, 2.0, -1.0}));
      theirs->weight.copy_(ours->weight);
      ours->bias.copy_(torch::tensor({0.1, 0.0, 0.3}));
      theirs->bias.copy_(ours->bias);
    }
    for (int step = 0; step < 3; ++step) {
      auto x = (torch::randn({4, 3, 5, 5}) * 3 + 1).requires_grad_();
      auto x2 = x.detach().clone().requires_grad_();
      const auto weights = torch::randn({4, 3, 5, 5});
      auto y = ours->forward(x);
      auto y2 = theirs->forward(x2);
      EXPECT_TRUE(torch::allclose(y, y2, 1e-5, 1e-6));
      (y * weights).sum().backward();
      (y2 * weights).sum().backward();
      EXPECT_TRUE(torch::allclose(x.grad(), x2.grad(), 1e-5, 1e-6));
    }
    EXPECT_TRUE(torch::allclose(ours->weight.grad(), theirs->weight.grad(), 1e-4, 1e-5));
    EXPECT_TRUE(torch::allclose(ours->bias.grad(), theirs->bias.grad(), 1e-4, 1e-5));
    EXPECT_TRUE(torch::allclose(ours->running_mean, theirs->running_mean));
    EXPECT_TRUE(torch::allclose(ours->running_var, theirs->running_var));
    EXPECT_EQ(ours->num_batches_tracked.item<int64_t>(), 3);
    ours->eval();
    theirs->eval();
    const auto x = torch::randn({2, 3, 4, 4});
    EXPECT_TRUE(torch::allclose(ours->forward(x), theirs->forward(x), 1e-5, 1e-6));
  }
}

TEST(SyncBatchNorm, HasBatchNormsParameterAndBufferNames) {
  nn::SyncBatchNorm ours(4);
  torch::nn::BatchNorm1d theirs(4);
  EXPECT_EQ(keys(ours->named_parameters()), keys(theirs->named_parameters()));
  EXPECT_EQ(keys(ours->named_buffers()), keys(theirs->named_buffers()));
  EXPECT_THAT(keys(ours->named_buffers()),
              ElementsAre("running_mean", "running_var", "num_batches_tracked"));
}

TEST(SyncBatchNorm, OverTwoRanksItGathersStatisticsAndSumsGradients) {
  MirroredTwoRanks strategy;
  torch::manual_seed(2);
  nn::SyncBatchNorm synced(3);
  torch::nn::BatchNorm1d plain(3);
  synced->set_strategy(&strategy);
  auto x = (torch::randn({6, 3}) * 2 - 1).to(torch::kDouble).requires_grad_();
  auto x2 = x.detach().clone().requires_grad_();
  synced->to(torch::kDouble);
  plain->to(torch::kDouble);
  const auto weights = torch::randn({6, 3}, torch::kDouble);
  auto y = synced->forward(x);
  auto y2 = plain->forward(x2);
  EXPECT_EQ(strategy.gathers, 1);
  EXPECT_TRUE(torch::allclose(y, y2, 1e-9, 1e-12));
  (y * weights).sum().backward();
  (y2 * weights).sum().backward();
  EXPECT_EQ(strategy.reduces, 1);
  // The input's gradient uses the doubled sums over the doubled count: the same values.
  EXPECT_TRUE(torch::allclose(x.grad(), x2.grad(), 1e-9, 1e-12));
  // The parameters' gradients stay local (DDP averages them).
  EXPECT_TRUE(torch::allclose(synced->weight.grad(), plain->weight.grad(), 1e-9, 1e-12));
  EXPECT_TRUE(torch::allclose(synced->bias.grad(), plain->bias.grad(), 1e-9, 1e-12));
  EXPECT_TRUE(torch::allclose(synced->running_mean, plain->running_mean, 1e-9, 1e-12));
  // Unbiased over 12 samples instead of 6.
  const auto var = x.detach().var(0, /*unbiased=*/false);
  EXPECT_TRUE(torch::allclose(synced->running_var, 0.9 + 0.1 * var * 12.0 / 11.0, 1e-9, 1e-12));

  // Evaluating uses the running statistics and needs no collective.
  synced->eval();
  synced->forward(x.detach());
  EXPECT_EQ(strategy.gathers, 1);
  // Detached, it is plain batch norm again.
  synced->train();
  synced->set_strategy(nullptr);
  synced->forward(x.detach());
  EXPECT_EQ(strategy.gathers, 1);
}

TEST(SyncBatchNorm, BadInputIsAClearError) {
  nn::SyncBatchNorm layer(3);
  EXPECT_THAT([&] { layer->forward(torch::randn({3})); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  "fulgur::nn::SyncBatchNorm expects (N, C, ...) input of at least 2 "
                  "dimensions, got 1"));
  EXPECT_THAT(
      [&] {
        layer->forward(torch::randn({2, 4, 5}));
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          "fulgur::nn::SyncBatchNorm(3) got input with 4 channels (shape 2x4x5)"));
}

struct Net : torch::nn::Module {
  Net() {
    register_module("stem", torch::nn::Linear(2, 3));
    norm = register_module("norm", nn::SyncBatchNorm(3));
  }
  nn::SyncBatchNorm norm{nullptr};
};

TEST(TorchSyncBatchNorm, AttachesTheStrategyToEverySyncBatchNormAndRevertDetaches) {
  MirroredTwoRanks strategy;
  Net net;
  TorchSyncBatchNorm sync;
  sync.apply(net, strategy);
  EXPECT_EQ(net.norm->strategy(), &strategy);
  sync.revert();
  EXPECT_EQ(net.norm->strategy(), nullptr);
}

TEST(TorchSyncBatchNorm, RefusesLibTorchsBatchNormNamingIt) {
  struct Legacy : torch::nn::Module {
    Legacy() {
      auto block = register_module("block", std::make_shared<torch::nn::Module>());
      block->register_module("bn", torch::nn::BatchNorm2d(8));
    }
  } legacy;
  MirroredTwoRanks strategy;
  TorchSyncBatchNorm sync;
  EXPECT_THAT([&] { sync.apply(legacy, strategy); },
              ::testing::ThrowsMessage<ConfigError>(
                  "sync_batchnorm=true cannot synchronise the torch::nn::BatchNorm2d at "
                  "\"block.bn\": C++ cannot swap a layer its parent holds, as Lightning does in "
                  "Python; declare it as fulgur::nn::SyncBatchNorm (plain batch norm when not "
                  "synchronised)"));
}

TEST(TorchSyncBatchNorm, TheConnectorInstallsItUnderAParallelStrategyOnly) {
  auto layer_sync = [](const AcceleratorConnector& c) {
    auto* parallel = dynamic_cast<ParallelStrategy*>(c.strategy().get());
    return parallel ? parallel->layer_sync() : nullptr;
  };
  AcceleratorConnector ddp({.accelerator = "cpu", .devices = 2, .sync_batchnorm = true});
  EXPECT_NE(std::dynamic_pointer_cast<TorchSyncBatchNorm>(layer_sync(ddp)), nullptr);
  AcceleratorConnector off({.accelerator = "cpu", .devices = 2});
  EXPECT_EQ(layer_sync(off), nullptr);
  AcceleratorConnector single({.accelerator = "cpu", .devices = 1, .sync_batchnorm = true});
  EXPECT_EQ(single.strategy_name(), "single_device");
}

}  // namespace
}  // namespace fulgur
