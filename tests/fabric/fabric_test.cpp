// fulgur::Fabric in one process: setup, the step helpers, checkpoints, collectives and logging.
// (tests/integration/fabric_example_test.cpp runs the example on 1 and 2 DDP processes.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "fulgur/errors.h"
#include "fulgur/fabric/fabric.h"
#include "fulgur/precision/mixed_precision.h"
#include "python.h"
#include "temp_dir.h"
#include "trainer/recording.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;
using testing::TempDirTest;

class FabricTest : public TempDirTest {};

struct Regression {
  torch::nn::Linear model{4, 1};
  std::shared_ptr<torch::optim::SGD> sgd =
      std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.1));
};

TEST_F(FabricTest, SetupConvertsTheModuleAndTheLoaderMovesBatches) {
  Fabric fabric({.accelerator = "cpu", .precision = "64-true"});
  Regression r;
  auto optimizer = fabric.setup(*r.model, r.sgd);
  EXPECT_EQ(r.model->weight.scalar_type(), torch::kFloat64);
  // The optimizer holds the same (converted) parameters.
  EXPECT_TRUE(r.sgd->param_groups()[0].params()[0].is_same(r.model->weight));
  auto loader = fabric.setup_dataloaders(testing::make_loader(6, 2));
  int64_t batches = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.scalar_type(), torch::kFloat64);
    auto loss = torch::mse_loss(r.model->forward(batch.data), batch.target);
    optimizer->zero_grad();
    fabric.backward(loss);
    optimizer->step();
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(fabric.world_size(), 1);
  EXPECT_TRUE(fabric.is_global_zero());
  EXPECT_EQ(fabric.device(), torch::Device(torch::kCPU));
}

TEST_F(FabricTest, StepsEqualAPlainLoop) {
  auto train = [](bool with_fabric) {
    torch::manual_seed(3);
    Regression r;
    std::unique_ptr<Fabric> fabric;
    std::shared_ptr<Optimizer> optimizer;
    if (with_fabric) {
      fabric = std::make_unique<Fabric>(FabricOptions{.accelerator = "cpu"});
      optimizer = fabric->setup(*r.model, r.sgd);
    }
    auto loader = testing::make_loader(8, 2);
    for (auto& batch : *loader) {
      auto loss = torch::mse_loss(r.model->forward(batch.data), batch.target);
      r.sgd->zero_grad();
      if (with_fabric) {
        fabric->backward(loss);
        optimizer->step();
      } else {
        loss.backward();
        r.sgd->step();
      }
    }
    return torch::cat({r.model->weight.flatten(), r.model->bias}).detach().clone();
  };
  EXPECT_TRUE(torch::equal(train(false), train(true)));
}

TEST_F(FabricTest, ClipGradientsByNormAndByValue) {
  Fabric fabric({.accelerator = "cpu"});
  Regression r;
  auto optimizer = fabric.setup(*r.model, r.sgd);
  auto run = [&] {
    optimizer->zero_grad();
    fabric.backward(100.0 * r.model->forward(torch::ones({1, 4})).sum());
  };
  run();
  fabric.clip_gradients(*optimizer, std::nullopt, /*max_norm=*/1.0);
  const auto norm = torch::cat({r.model->weight.grad().flatten(), r.model->bias.grad()}).norm();
  EXPECT_NEAR(norm.item<double>(), 1.0, 1e-5);
  run();
  fabric.clip_gradients(*optimizer, /*clip_val=*/0.5);
  EXPECT_LE(r.model->weight.grad().abs().max().item<double>(), 0.5);
  EXPECT_THAT([&] { fabric.clip_gradients(*optimizer, 1.0, 1.0); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("Only one of clip_val or max_norm")));
  EXPECT_THAT([&] { fabric.clip_gradients(*optimizer, std::nullopt); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("either clip_val or max_norm")));
}

TEST_F(FabricTest, AutocastIsThePrecisionsForwardContext) {
  Fabric bf16({.accelerator = "cpu", .precision = "bf16-mixed"});
  torch::nn::Linear layer(4, 4);
  bf16.setup_module(*layer);
  {
    auto scope = bf16.autocast();
    ASSERT_NE(scope, nullptr);
    EXPECT_EQ(layer->forward(torch::ones({2, 4})).scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(layer->forward(torch::ones({2, 4})).scalar_type(), torch::kFloat32);
  Fabric full({.accelerator = "cpu"});
  EXPECT_EQ(full.autocast(), nullptr);
}

TEST_F(FabricTest, SaveAndLoadRoundTripEveryPart) {
  Fabric fabric({.accelerator = "cpu"});
  Regression a;
  auto optimizer = fabric.setup(*a.model, std::make_shared<torch::optim::Adam>(a.model->parameters()));
  fabric.backward(a.model->forward(torch::ones({3, 4})).sum());
  optimizer->step();
  fabric.save(path("state.ckpt"), {.modules = {{"model", a.model.get()}},
                                   .optimizers = {{"optimizer", &optimizer->optimizer()}},
                                   .values = {{"step", int64_t{17}}}});

  Regression b;
  auto adam = std::make_shared<torch::optim::Adam>(b.model->parameters());
  FabricState state{.modules = {{"model", b.model.get()}},
                    .optimizers = {{"optimizer", adam.get()}},
                    .values = {{"step", int64_t{0}}}};
  fabric.load(path("state.ckpt"), state);
  EXPECT_TRUE(torch::equal(a.model->weight, b.model->weight));
  EXPECT_EQ(state.values.at("step").toInt(), 17);
  EXPECT_EQ(adam->state().size(), 2u);  // Adam's moments came back

  // Python reads it as a plain dict.
  std::ofstream(path("read.py"))
      << "import torch\nc = torch.load('" << path("state.ckpt") << "')\n"
      << "print(sorted(c), c['step'], sorted(c['model']), len(c['optimizer']['state']))\n";
  std::FILE* pipe = ::popen((testing::python() + " " + path("read.py")).c_str(), "r");
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
  ::pclose(pipe);
  EXPECT_EQ(std::string(line), "['model', 'optimizer', 'step'] 17 ['bias', 'weight'] 2\n");
}

TEST_F(FabricTest, LoadChecksEverythingBeforeChangingAnything) {
  Fabric fabric({.accelerator = "cpu"});
  Regression a;
  fabric.save(path("model.ckpt"), {.modules = {{"model", a.model.get()}}});
  Regression b;
  const auto before = b.model->weight.clone();
  FabricState missing{.modules = {{"model", b.model.get()}}, .values = {{"step", int64_t{0}}}};
  EXPECT_THAT([&] { fabric.load(path("model.ckpt"), missing); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("has no \"step\"")));
  EXPECT_TRUE(torch::equal(b.model->weight, before));
  fabric.load(path("model.ckpt"), missing, /*strict=*/false);
  EXPECT_TRUE(torch::equal(b.model->weight, a.model->weight));

  torch::nn::Linear wider(5, 1);
  FabricState mismatched{.modules = {{"model", wider.get()}}};
  EXPECT_THAT([&] { fabric.load(path("model.ckpt"), mismatched); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("size mismatch for weight")));
  std::ofstream(path("junk.ckpt")) << "not a checkpoint";
  EXPECT_THROW(fabric.load(path("junk.ckpt"), mismatched), CheckpointError);
  EXPECT_THROW(fabric.load(path("absent.ckpt"), mismatched), CheckpointError);
}

TEST_F(FabricTest, NoBackwardSyncAndCollectivesInOneProcess) {
  Fabric fabric({.accelerator = "cpu"});
  Regression r;
  auto optimizer = fabric.setup(*r.model, r.sgd);
  {
    auto pause = fabric.no_backward_sync();
    fabric.backward(r.model->forward(torch::ones({1, 4})).sum());
  }
  fabric.backward(r.model->forward(torch::ones({1, 4})).sum());
  EXPECT_TRUE(torch::allclose(r.model->bias.grad(), torch::full({1}, 2.0)));  // accumulated

  const auto t = torch::arange(3.0);
  EXPECT_TRUE(torch::equal(fabric.all_reduce(t, ReduceOp::Sum), t));
  // As Lightning's: in a world of one process no dimension is added.
  EXPECT_TRUE(torch::equal(fabric.all_gather(t), t));
  EXPECT_EQ(fabric.broadcast(std::string("x")), "x");
  fabric.barrier();
}

TEST_F(FabricTest, LogsGoToTheLoggersWithCountedSteps) {
  auto memory = std::make_shared<testing::MemoryLogger>();
  Fabric fabric({.accelerator = "cpu", .loggers = {memory}});
  fabric.log("loss", 1.5);
  fabric.log_dict({{"a", 1.0}, {"b", 2.0}});
  fabric.log("loss", 0.5, /*step=*/10);
  ASSERT_EQ(memory->rows.size(), 3u);
  EXPECT_EQ(memory->rows[0].first, 0);
  EXPECT_EQ(memory->rows[0].second.at("loss"), 1.5);
  EXPECT_EQ(memory->rows[1].first, 1);
  EXPECT_EQ(memory->rows[1].second.size(), 2u);
  EXPECT_EQ(memory->rows[2].first, 10);
}

TEST_F(FabricTest, LaunchRunsTheFunctionOnceAndOnlyOnce) {
  Fabric fabric({.accelerator = "cpu"});
  int runs = 0;
  fabric.launch([&](Fabric& f) {
    EXPECT_EQ(&f, &fabric);
    ++runs;
  });
  EXPECT_EQ(runs, 1);
  EXPECT_THAT([&] { fabric.launch([](Fabric&) {}); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("called twice")));
  EXPECT_THROW(Fabric({.accelerator = "tpu"}), ConfigError);
}

}  // namespace
}  // namespace fulgur
