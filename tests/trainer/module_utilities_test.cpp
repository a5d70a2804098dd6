// The Module's helpers beyond the hooks: toggle_optimizer / untoggle_optimizer (and the scoped
// toggled_optimizer), freeze / unfreeze, print and all_gather (in one process; the DDP ranks'
// all_gather runs in tests/integration/ddp_launch_test.cpp), each as Lightning's.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

using Flags = std::map<std::string, bool>;

Flags requires_grad(const torch::nn::Module& module) {
  Flags out;
  for (const auto& item : module.named_parameters()) out[item.key()] = item.value().requires_grad();
  return out;
}

// A GAN-like module: a "generator" layer and a "discriminator" layer, one optimizer each; the
// generator's bias is frozen in configure_optimizers. Each training step records which
// parameters require gradients while each optimizer is toggled, and after untoggling.
class TogglingModule : public RecordingModule {
 public:
  TogglingModule(Calls& calls, bool scoped) : RecordingModule(calls, 8, 0), scoped_(scoped) {
    set_automatic_optimization(false);
    discriminator_ = register_module("discriminator", torch::nn::Linear(4, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    auto opts = optimizers();
    auto loss = torch::Tensor();
    if (scoped_) {
      auto toggled = toggled_optimizer(*opts[0]);
      while_generator = requires_grad(*this);
      loss = step(*opts[0], RecordingModule::training_step(batch, idx));
    } else {
      toggle_optimizer(*opts[1]);
      while_discriminator = requires_grad(*this);
      step(*opts[1], torch::mse_loss(discriminator_->forward(batch.data), batch.target));
      untoggle_optimizer(*opts[1]);
      loss = torch::zeros({});
    }
    after = requires_grad(*this);
    return loss;
  }
  OptimizerConfig configure_optimizers() override {
    auto params = named_parameters();
    params["layer.bias"].set_requires_grad(false);
    auto generator = std::make_shared<torch::optim::SGD>(
        std::vector<torch::Tensor>{params["layer.weight"], params["layer.bias"]},
        torch::optim::SGDOptions(0.01));
    auto discriminator = std::make_shared<torch::optim::SGD>(discriminator_->parameters(),
                                                             torch::optim::SGDOptions(0.01));
    return OptimizerConfig({generator, discriminator});
  }

  Flags while_generator, while_discriminator, after;

 private:
  torch::Tensor step(Optimizer& optimizer, torch::Tensor loss) {
    optimizer.zero_grad();
    manual_backward(loss);
    optimizer.step();
    return loss.detach();
  }
  bool scoped_;
  torch::nn::Linear discriminator_{nullptr};
};

TEST(ModuleToggleOptimizer, OnlyTheToggledOptimizersParametersRequireGradients) {
  Calls calls;
  TogglingModule module(calls, /*scoped=*/false);
  const auto discriminator_before = module.named_parameters()["discriminator.weight"].clone();
  Trainer trainer(quiet({.max_epochs = 1}));
  trainer.fit(module);
  EXPECT_EQ(module.while_discriminator,
            (Flags{{"discriminator.bias", true},
                   {"discriminator.weight", true},
                   {"layer.bias", false},
                   {"layer.weight", false}}));
  // Untoggled: the generator's weight requires gradients again, its frozen bias stays frozen.
  EXPECT_EQ(module.after, (Flags{{"discriminator.bias", true},
                                 {"discriminator.weight", true},
                                 {"layer.bias", false},
                                 {"layer.weight", true}}));
  EXPECT_FALSE(torch::equal(discriminator_before,
                            module.named_parameters()["discriminator.weight"]));
}

TEST(ModuleToggleOptimizer, TheScopedToggleUntogglesAtTheScopesEnd) {
  Calls calls;
  TogglingModule module(calls, /*scoped=*/true);
  Trainer trainer(quiet({.max_epochs = 1}));
  trainer.fit(module);
  // The generator's frozen bias keeps its requires_grad = false even while it is toggled.
  EXPECT_EQ(module.while_generator, (Flags{{"discriminator.bias", false},
                                           {"discriminator.weight", false},
                                           {"layer.bias", false},
                                           {"layer.weight", true}}));
  EXPECT_EQ(module.after, (Flags{{"discriminator.bias", true},
                                 {"discriminator.weight", true},
                                 {"layer.bias", false},
                                 {"layer.weight", true}}));
}

TEST(ModuleFreeze, FreezeStopsGradientsAndEvaluatesUnfreezeUndoesBoth) {
  Calls calls;
  RecordingModule module(calls, 4, 0);
  EXPECT_EQ(&module.freeze(), &module);
  EXPECT_FALSE(module.is_training());
  for (const auto& child : module.modules(/*include_self=*/false)) EXPECT_FALSE(child->is_training());
  for (const auto& [name, on] : requires_grad(module)) EXPECT_FALSE(on) << name;
  EXPECT_EQ(&module.unfreeze(), &module);  // both return the module, as Lightning's
  EXPECT_TRUE(module.is_training());
  for (const auto& child : module.modules(/*include_self=*/false)) EXPECT_TRUE(child->is_training());
  for (const auto& [name, on] : requires_grad(module)) EXPECT_TRUE(on) << name;
}

// Gathers in training_step, in a world of one process.
class GatheringModule : public RecordingModule {
 public:
  explicit GatheringModule(Calls& calls) : RecordingModule(calls, 2, 0) {}
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    const auto t = torch::arange(6.0).view({2, 3});
    gathered = all_gather(t);
    same_tensor = gathered.unsafeGetTensorImpl() == t.unsafeGetTensorImpl();
    gathered_dict = all_gather({{"a", torch::ones({2})}, {"b", torch::zeros({})}});
    // sync_grads in a world of one: the tensor itself, so its gradient is the plain one.
    auto x = torch::full({3}, 2.0, torch::requires_grad());
    (all_gather(x, /*sync_grads=*/true) * torch::arange(3.0)).sum().backward();
    x_grad = x.grad();
    return RecordingModule::training_step(batch, idx);
  }
  torch::Tensor gathered, x_grad;
  bool same_tensor = false;
  std::map<std::string, torch::Tensor> gathered_dict;
};

TEST(ModuleAllGather, InAWorldOfOneProcessReturnsTheTensorUnchanged) {
  Calls calls;
  GatheringModule module(calls);
  Trainer trainer(quiet({.max_epochs = 1}));
  trainer.fit(module);
  EXPECT_TRUE(module.same_tensor);
  EXPECT_TRUE(torch::equal(module.gathered, torch::arange(6.0).view({2, 3})));
  ASSERT_EQ(module.gathered_dict.size(), 2u);
  EXPECT_TRUE(torch::equal(module.gathered_dict.at("a"), torch::ones({2})));
  EXPECT_EQ(module.gathered_dict.at("b").dim(), 0);
  EXPECT_TRUE(torch::equal(module.x_grad, torch::arange(3.0)));
}

TEST(ModuleAllGather, WithoutATrainerIsAClearError) {
  Calls calls;
  RecordingModule module(calls);
  try {
    module.all_gather(torch::ones({2}));
    FAIL() << "no error";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "RecordingModule.all_gather: the module is not attached to a Trainer (call it "
                 "from a hook or step during fit, validate, test or predict)");
  }
}

// Prints from training_step, with and without a progress bar.
class PrintingModule : public RecordingModule {
 public:
  explicit PrintingModule(Calls& calls, std::chrono::milliseconds pause = {})
      : RecordingModule(calls, 8, 0), pause_(pause) {}
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    std::this_thread::sleep_for(pause_);
    print("batch", idx, "of epoch", current_epoch(), 0.5);
    return RecordingModule::training_step(batch, idx);
  }

 private:
  std::chrono::milliseconds pause_;
};

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string out;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) out.append(buffer, n);
  return out;
}

TEST(ModulePrint, PrintsTheArgumentsSeparatedBySpacesWithoutATrainer) {
  Calls calls;
  PrintingModule module(calls);
  ::testing::internal::CaptureStdout();
  module.print("loss", 1.5, 3, torch::tensor({2}).size(0));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "loss 1.5 3 1\n");
}

TEST(ModulePrint, PrintsAboveAnInteractiveProgressBarAndDrawsTheBarAgain) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Calls calls;
  // Slow enough batches that the bar, drawn at most every 100 ms, is drawn after each.
  PrintingModule module(calls, std::chrono::milliseconds(120));
  auto options = quiet({.max_epochs = 1});
  options.enable_progress_bar = true;
  options.callbacks = {std::make_shared<ProgressBar>(out, /*interactive=*/1)};
  Trainer trainer(options);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  // All of it went to the bar's stream.
  EXPECT_EQ(::testing::internal::GetCapturedStdout().find("batch"), std::string::npos);
  const std::string text = read_all(out);
  std::fclose(out);
  // The first batch prints before any bar is drawn; the next ones print over the drawn bar
  // (carriage return, the text, the rest of the line erased) and the bar comes back below.
  EXPECT_EQ(text.rfind("batch 0 of epoch 0 0.5\n", 0), 0u) << text;
  for (const char* line : {"batch 1 of epoch 0 0.5", "batch 2 of epoch 0 0.5",
                           "batch 3 of epoch 0 0.5"}) {
    const auto at = text.find(std::string("\r") + line + "\x1b[K\n\rEpoch 0:");
    EXPECT_NE(at, std::string::npos) << line << " in " << text;
  }
}

TEST(ModulePrint, PrintsPlainLinesToANonInteractiveBarsStream) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Calls calls;
  PrintingModule module(calls);
  auto options = quiet({.max_epochs = 1});
  options.enable_progress_bar = true;
  options.callbacks = {std::make_shared<ProgressBar>(out, /*interactive=*/0)};
  Trainer trainer(options);
  trainer.fit(module);
  const std::string text = read_all(out);
  std::fclose(out);
  EXPECT_EQ(text.rfind("batch 0 of epoch 0 0.5\nbatch 1 of epoch 0 0.5\nbatch 2 of epoch 0 0.5\n"
                       "batch 3 of epoch 0 0.5\nEpoch 0: 4/4 batches in ",
                       0),
            0u)
      << text;
}

}  // namespace
}  // namespace fulgur::testing
