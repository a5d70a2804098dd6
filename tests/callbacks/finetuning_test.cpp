// BackboneFinetuning / BaseFinetuning: the backbone frozen until `unfreeze_backbone_at_epoch`
// (batch norms as train_bn says), then a param group of its own whose rate grows by lambda_func
// and aligns with the head's; the groups saved by name in checkpoints and rebuilt on resume
// (the resumed fit equal to the uninterrupted one); a chainable scheduler decaying the added
// group; the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "callbacks/checkpointing.h"
#include "fulgur/callbacks/backbone_finetuning.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "python.h"
#include "temp_dir.h"

namespace fulgur::testing {
namespace {

using ::testing::HasSubstr;

// A backbone (Linear 4→8, BatchNorm1d, ReLU) and a head (Linear 8→1), regression on 8 samples
// in batches of 2: 4 steps per epoch. The optimizer gets the head only, as Lightning's docs say.
class Finetuned : public Module {
 public:
  explicit Finetuned(bool with_scheduler = false, std::string backbone_name = "backbone")
      : Module("Finetuned"), with_scheduler_(with_scheduler) {
    torch::manual_seed(7);
    backbone = register_module(
        backbone_name, torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::BatchNorm1d(8),
                                             torch::nn::ReLU()));
    head = register_module("head", torch::nn::Linear(8, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    return torch::mse_loss(head(backbone->forward(batch.data)), batch.target);
  }
  OptimizerConfig configure_optimizers() override {
    auto sgd = std::make_shared<torch::optim::SGD>(head->parameters(),
                                                   torch::optim::SGDOptions(0.1).momentum(0.9));
    if (!with_scheduler_) return OptimizerConfig(sgd);
    return OptimizerConfig({sgd},
                           {SchedulerConfig{.scheduler = std::make_shared<StepLR>(*sgd, 1, 0.5)}});
  }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(8); }
  void on_train_epoch_start() override {
    const auto& groups = trainer()->optimizers().at(0)->param_groups();
    std::vector<double> lrs;
    for (const auto& g : groups) lrs.push_back(g.options().get_lr());
    epoch_lrs.push_back(lrs);
    backbone_trainable.push_back(backbone[0]->as<torch::nn::Linear>()->weight.requires_grad());
    bn_trainable.push_back(backbone[1]->as<torch::nn::BatchNorm1d>()->weight.requires_grad());
    bn_tracks.push_back(backbone[1]->as<torch::nn::BatchNorm1d>()->options.track_running_stats());
  }
  std::vector<torch::Tensor> weights() {
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters()) out.push_back(p.detach().clone());
    return out;
  }

  torch::nn::Sequential backbone{nullptr};
  torch::nn::Linear head{nullptr};
  std::vector<std::vector<double>> epoch_lrs;
  std::vector<bool> backbone_trainable, bn_trainable, bn_tracks;

 private:
  bool with_scheduler_;
};

TrainerOptions options(int64_t max_epochs, std::vector<std::shared_ptr<Callback>> callbacks) {
  return quiet({.callbacks = std::move(callbacks), .max_epochs = max_epochs});
}

TEST(BackboneFinetuning, FrozenUntilTheEpochThenAGroupWhoseRateGrowsAndAligns) {
  Finetuned module;
  const auto frozen = module.backbone[0]->as<torch::nn::Linear>()->weight.detach().clone();
  auto finetuning = std::make_shared<BackboneFinetuning>(
      BackboneFinetuningOptions{.unfreeze_backbone_at_epoch = 1, .backbone_initial_lr = 0.03});
  Trainer trainer(options(4, {finetuning}));
  trainer.fit(module);
  // Epoch 1: 0.03 given; epoch 2: 2 × 0.03; epoch 3: 2 × 0.06 = 0.12, past the head's 0.1.
  EXPECT_EQ(module.epoch_lrs,
            (std::vector<std::vector<double>>{{0.1}, {0.1, 0.03}, {0.1, 0.06}, {0.1, 0.1}}));
  EXPECT_EQ(module.backbone_trainable, (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(module.bn_trainable, (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(module.bn_tracks, (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(finetuning->previous_backbone_lr(), 0.1);
  // The backbone's group: its Linear and BatchNorm parameters, all four.
  const auto& groups = trainer.optimizers().at(0)->param_groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].params().size(), 4u);
  EXPECT_TRUE(groups[1].params()[0].is_same(module.backbone[0]->as<torch::nn::Linear>()->weight));
  EXPECT_FALSE(torch::equal(frozen, module.backbone[0]->as<torch::nn::Linear>()->weight));
}

TEST(BackboneFinetuning, TheBackboneDoesNotMoveWhileFrozen) {
  Finetuned module;
  const auto before = module.backbone[0]->as<torch::nn::Linear>()->weight.detach().clone();
  Trainer trainer(options(2, {std::make_shared<BackboneFinetuning>(
                                 BackboneFinetuningOptions{.unfreeze_backbone_at_epoch = 2})}));
  trainer.fit(module);
  EXPECT_TRUE(torch::equal(before, module.backbone[0]->as<torch::nn::Linear>()->weight));
  EXPECT_EQ(trainer.optimizers().at(0)->param_groups().size(), 1u);
}

TEST(BackboneFinetuning, DefaultsStartAtATenthOfTheHeadAndDouble) {
  Finetuned module;
  Trainer trainer(options(3, {std::make_shared<BackboneFinetuning>(
                                 BackboneFinetuningOptions{.unfreeze_backbone_at_epoch = 0})}));
  trainer.fit(module);
  ASSERT_EQ(module.epoch_lrs.size(), 3u);
  EXPECT_DOUBLE_EQ(module.epoch_lrs[0][1], 0.1 * 0.1);
  EXPECT_DOUBLE_EQ(module.epoch_lrs[1][1], 0.1 * 0.1 * 2);
  EXPECT_DOUBLE_EQ(module.epoch_lrs[2][1], 0.1 * 0.1 * 4);
}

TEST(BackboneFinetuning, WithoutTrainBnTheBatchNormIsLeftOutOfTheGroup) {
  // As Lightning's: the backbone is frozen with train_bn on whatever the option says, so its
  // batch norm keeps training statistics; train_bn decides whether its parameters join the group.
  Finetuned module;
  Trainer trainer(options(2, {std::make_shared<BackboneFinetuning>(BackboneFinetuningOptions{
                                 .unfreeze_backbone_at_epoch = 1, .train_bn = false})}));
  trainer.fit(module);
  EXPECT_EQ(module.bn_trainable, (std::vector<bool>{true, true}));
  const auto& added = trainer.optimizers().at(0)->param_groups().at(1).params();
  ASSERT_EQ(added.size(), 2u);
  EXPECT_TRUE(added[1].is_same(module.backbone[0]->as<torch::nn::Linear>()->bias));
}

TEST(BaseFinetuning, FreezingWithoutTrainBnStopsTheBatchNormsStatistics) {
  torch::nn::Sequential net(torch::nn::Linear(2, 3), torch::nn::BatchNorm1d(3));
  auto bn = net[1]->as<torch::nn::BatchNorm1d>();
  BaseFinetuning::freeze({net.ptr()}, /*train_bn=*/false);
  EXPECT_FALSE(bn->weight.requires_grad());
  EXPECT_FALSE(bn->options.track_running_stats());
  const auto mean = bn->running_mean.clone();
  net->forward(torch::randn({4, 2}));  // training mode: normalised with the batch's statistics
  EXPECT_TRUE(torch::equal(mean, bn->running_mean));
  EXPECT_TRUE(BaseFinetuning::filter_params({net.ptr()}, true, true).empty());
  BaseFinetuning::make_trainable({net.ptr()});
  EXPECT_TRUE(bn->options.track_running_stats());
  EXPECT_EQ(bn->options.momentum(), 0.1);  // its own again
  net->forward(torch::randn({4, 2}));
  EXPECT_FALSE(torch::equal(mean, bn->running_mean));
  // Leaves and the modules with parameters of their own: Linear and BatchNorm, not the Sequential.
  EXPECT_EQ(BaseFinetuning::flatten_modules({net.ptr()}).size(), 2u);
  EXPECT_EQ(BaseFinetuning::filter_params({net.ptr()}, /*train_bn=*/false).size(), 2u);
}

TEST(BackboneFinetuning, VerbosePrintsBothRates) {
  Finetuned module;
  Trainer trainer(options(2, {std::make_shared<BackboneFinetuning>(BackboneFinetuningOptions{
                                 .unfreeze_backbone_at_epoch = 0, .verbose = true})}));
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "Current lr: 0.1, Backbone lr: 0.01\nCurrent lr: 0.1, Backbone lr: 0.02\n");
}

TEST(BackboneFinetuning, AModuleWithoutTheBackboneIsAClearError) {
  Finetuned module(false, "features");
  Trainer trainer(options(1, {std::make_shared<BackboneFinetuning>()}));
  EXPECT_THAT([&] { trainer.fit(module); },
              ::testing::ThrowsMessage<MisconfigurationError>(::testing::StrEq(
                  "BackboneFinetuning: the module Finetuned has no submodule `backbone`; register "
                  "the part to finetune with register_module(\"backbone\", ...)")));
  // A backbone by another name.
  Finetuned named(false, "features");
  Trainer other(options(1, {std::make_shared<BackboneFinetuning>(
                               BackboneFinetuningOptions{.backbone = "features"})}));
  EXPECT_NO_THROW(other.fit(named));
}

TEST(BaseFinetuning, ParametersAlreadyInTheOptimizerAreSkippedWithAWarning) {
  torch::nn::Linear a(2, 2), b(2, 2);
  torch::optim::SGD sgd(a->parameters(), torch::optim::SGDOptions(0.5));
  BaseFinetuning::freeze({a.ptr(), b.ptr()});
  EXPECT_FALSE(b->weight.requires_grad());
  ::testing::internal::CaptureStderr();
  BaseFinetuning::unfreeze_and_add_param_group({a.ptr(), b.ptr()}, sgd);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("fulgur: warning: The provided params to be frozen already exist within "
                        "another group of this optimizer. Those parameters will be skipped (2 of "
                        "4)."));
  ASSERT_EQ(sgd.param_groups().size(), 2u);
  EXPECT_EQ(sgd.param_groups()[1].params().size(), 2u);
  EXPECT_TRUE(sgd.param_groups()[1].params()[0].is_same(b->weight));
  // No rate given: the first group's divided by initial_denom_lr.
  EXPECT_DOUBLE_EQ(sgd.param_groups()[1].options().get_lr(), 0.05);
}

class FinetuningResume : public TempDirTest {
 protected:
  // Fits to `max_epochs` with a checkpoint at every epoch's end, from `ckpt` if given.
  std::vector<torch::Tensor> fit(Finetuned& module, int64_t max_epochs,
                                 std::optional<std::string> ckpt = std::nullopt,
                                 bool with_finetuning = true) {
    std::vector<std::shared_ptr<Callback>> callbacks{std::make_shared<ModelCheckpoint>(
        ModelCheckpointOptions{.dirpath = path("ckpt"), .save_top_k = -1})};
    if (with_finetuning) {
      callbacks.push_back(std::make_shared<BackboneFinetuning>(
          BackboneFinetuningOptions{.unfreeze_backbone_at_epoch = 1}));
    }
    auto o = checkpointing_only({.callbacks = callbacks, .max_epochs = max_epochs});
    o.logger = false;
    Trainer trainer(o);
    trainer.fit(module, nullptr, nullptr, std::move(ckpt));
    return module.weights();
  }
};

TEST_F(FinetuningResume, ResumingAfterTheUnfreezingEqualsTheUninterruptedFit) {
  Finetuned straight(/*with_scheduler=*/true);
  const auto expected = fit(straight, 4);
  for (const char* name : {"epoch=0-step=4.ckpt", "epoch=1-step=8.ckpt", "epoch=2-step=12.ckpt"}) {
    SCOPED_TRACE(name);
    Finetuned resumed(/*with_scheduler=*/true);
    const auto got = fit(resumed, 4, path("ckpt/") + name);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(torch::equal(got[i], expected[i])) << i;
    EXPECT_EQ(resumed.epoch_lrs.back(), straight.epoch_lrs.back());
    EXPECT_TRUE(resumed.backbone_trainable.back());
  }
  // StepLR halves both groups at every epoch's end; the callback then sets the backbone's.
  const std::vector<std::vector<double>> lrs{{0.1}, {0.05, 0.005}, {0.025, 0.01}, {0.0125, 0.0125}};
  ASSERT_EQ(straight.epoch_lrs.size(), lrs.size());
  for (size_t e = 0; e < lrs.size(); ++e) {
    ASSERT_EQ(straight.epoch_lrs[e].size(), lrs[e].size()) << e;
    for (size_t g = 0; g < lrs[e].size(); ++g) {
      EXPECT_NEAR(straight.epoch_lrs[e][g], lrs[e][g], 1e-15) << e << ", " << g;
    }
  }
}

TEST_F(FinetuningResume, TheCheckpointNamesTheGroupsParametersAsLightningDoes) {
  Finetuned module;
  fit(module, 2);
  const std::string script = path("read.py");
  std::ofstream(script) << "import sys, torch\n"
                           "c = torch.load(sys.argv[1], map_location='cpu')\n"
                           "s = c['callbacks']['BackboneFinetuning']\n"
                           "print(round(s['previous_backbone_lr'], 12))\n"
                           "for g in s['internal_optimizer_metadata'][0]:\n"
                           "    print(round(g['lr'], 12), ','.join(g['params']))\n";
  const std::string out = path("out.txt");
  ASSERT_EQ(std::system((python() + " " + script + " " + path("ckpt/epoch=1-step=8.ckpt") + " > " +
                         out + " 2>&1")
                            .c_str()),
            0);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "0.01\n0.1 head.weight,head.bias\n"
            "0.01 backbone.0.weight,backbone.0.bias,backbone.1.weight,backbone.1.bias\n");
}

TEST_F(FinetuningResume, WithoutTheCallbackTheAddedGroupIsAClearError) {
  Finetuned module;
  fit(module, 2);
  Finetuned resumed;
  ::testing::internal::CaptureStderr();
  EXPECT_THAT([&] { fit(resumed, 4, path("ckpt/epoch=1-step=8.ckpt"), false); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("param group")));
  ::testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace fulgur::testing
