// When the Trainer steps LR schedulers, against Lightning 2.6: a batch that skips the rest of its
// epoch (on_train_batch_start false, Lightning's -1) ends the epoch for the schedulers; schedulers
// that monitor a metric step only after an epoch that ran all its batches and was not resumed
// into; a monitor on another scheduler is ignored; strict=false warns; manual optimization drops
// monitor and strict; a scheduler of another optimizer and OneCycleLR by epoch are caught.
#include <gtest/gtest.h>

#include <functional>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/errors.h"
#include "fulgur/optim/one_cycle_lr.h"
#include "fulgur/optim/reduce_lr_on_plateau.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// Counts its steps; needs a metric, as ReduceLROnPlateau.
class CountingPlateau : public LRScheduler {
 public:
  CountingPlateau(torch::optim::Optimizer& optimizer, int64_t& steps)
      : LRScheduler(optimizer), steps_(steps) {}
  std::string name() const override { return "CountingPlateau"; }
  bool needs_metric() const override { return true; }

 protected:
  std::vector<double> compute_lrs(std::optional<double>) override {
    ++steps_;
    return base_lrs_;
  }

 private:
  int64_t& steps_;
};

// SGD (lr 0.1) with the scheduler configs `make` returns for it; logs train_loss; batches of 2.
class Scheduled : public RecordingModule {
 public:
  using MakeConfigs = std::function<std::vector<SchedulerConfig>(torch::optim::SGD&)>;
  Scheduled(Calls& calls, int64_t train_samples, MakeConfigs make)
      : RecordingModule(calls, train_samples, 4), make_(std::move(make)) {}

  std::optional<int64_t> skip_rest_at;  // on_train_batch_start returns false at this batch_idx
  int64_t plateau_steps = 0;

  torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
    auto loss = RecordingModule::training_step(batch, batch_idx);
    log("train_loss", loss);
    return loss;
  }
  bool on_train_batch_start(Batch&, int64_t batch_idx) override {
    return !(skip_rest_at && batch_idx == *skip_rest_at);
  }
  OptimizerConfig configure_optimizers() override {
    sgd_ = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    return OptimizerConfig({sgd_}, make_(*sgd_));
  }
  double lr() const { return sgd_->param_groups()[0].options().get_lr(); }

 private:
  MakeConfigs make_;
  std::shared_ptr<torch::optim::SGD> sgd_;
};

// What `run` warns about (fulgur's warnings go to stderr).
std::string warnings_of(const std::function<void()>& run) {
  ::testing::internal::CaptureStderr();
  run();
  return ::testing::internal::GetCapturedStderr();
}

Scheduled::MakeConfigs step_lr(std::string interval, std::string monitor = "") {
  return [=](torch::optim::SGD& sgd) {
    return std::vector<SchedulerConfig>{{.scheduler = std::make_shared<StepLR>(sgd, 1, 0.5),
                                         .interval = interval,
                                         .monitor = monitor}};
  };
}

Scheduled::MakeConfigs counting_plateau(int64_t& steps, std::string monitor, bool strict = true) {
  return [&steps, monitor, strict](torch::optim::SGD& sgd) {
    return std::vector<SchedulerConfig>{
        {.scheduler = std::make_shared<CountingPlateau>(sgd, steps), .monitor = monitor,
         .strict = strict}};
  };
}

TEST(LRSchedulerStepping, PlateauSchedulersStepOnlyAfterAnEpochRanAllItsBatches) {
  // An epoch cut short by max_steps did not see the epoch its metric describes.
  Calls calls;
  int64_t steps = 0;
  Scheduled module(calls, 20, counting_plateau(steps, "val_loss"));
  Trainer trainer(quiet({.max_steps = 15}));
  trainer.fit(module);
  EXPECT_EQ(trainer.global_step(), 15);  // epoch 0 whole, epoch 1 cut after 5 of 10 batches
  EXPECT_EQ(steps, 1);
}

TEST(LRSchedulerStepping, SkippingTheRestOfAnEpochStepsTheSchedulersAsItsEnd) {
  Calls calls;
  // 8 batches; batch 4 ends the epoch: step-interval schedulers step for batches 0-4.
  Scheduled by_step(calls, 16, step_lr("step"));
  by_step.skip_rest_at = 4;
  Trainer one(quiet({.max_epochs = 1}));
  one.fit(by_step);
  EXPECT_EQ(one.global_step(), 4);
  EXPECT_DOUBLE_EQ(by_step.lr(), 0.1 * std::pow(0.5, 5));
  // Epoch-interval schedulers step at each such end.
  Scheduled by_epoch(calls, 16, step_lr("epoch"));
  by_epoch.skip_rest_at = 4;
  Trainer three(quiet({.max_epochs = 3}));
  three.fit(by_epoch);
  EXPECT_DOUBLE_EQ(by_epoch.lr(), 0.1 * std::pow(0.5, 3));
  // And so do those that monitor a metric.
  int64_t steps = 0;
  Scheduled plateau(calls, 16, counting_plateau(steps, "train_loss"));
  plateau.skip_rest_at = 4;
  Trainer two(quiet({.max_epochs = 2}));
  two.fit(plateau);
  EXPECT_EQ(steps, 2);
}

TEST(LRSchedulerStepping, AnEpochResumedIntoDoesNotStepPlateauSchedulers) {
  // Its first part's metrics are not in the checkpoint (Lightning: `not self.restarting`).
  const auto root = fresh_dir("lr_resumed_plateau");
  Calls calls;
  int64_t first_steps = 0;
  Scheduled first(calls, 8, counting_plateau(first_steps, "val_loss"));
  auto every_2 = std::make_shared<ModelCheckpoint>(
      ModelCheckpointOptions{.dirpath = root, .save_top_k = -1, .every_n_train_steps = 2});
  auto options = quiet({.callbacks = {every_2}, .max_epochs = 1});
  options.enable_checkpointing = true;
  Trainer trainer(options);
  trainer.fit(first);
  ASSERT_EQ(first_steps, 1);
  int64_t resumed_steps = 0;
  Scheduled resumed(calls, 8, counting_plateau(resumed_steps, "val_loss"));
  Trainer again(quiet({.max_epochs = 2}));
  again.fit(resumed, nullptr, nullptr, root + "/epoch=0-step=2.ckpt");
  EXPECT_EQ(again.global_step(), 8);
  EXPECT_EQ(resumed_steps, 1);  // epoch 1 only
}

TEST(LRSchedulerStepping, AMonitorOnASchedulerThatNeedsNoMetricIsIgnored) {
  Calls calls;
  Scheduled module(calls, 8, step_lr("epoch", "val_loss"));
  Trainer trainer(quiet({.max_epochs = 2}));
  EXPECT_NO_THROW(trainer.fit(module));
  EXPECT_DOUBLE_EQ(module.lr(), 0.025);
}

TEST(LRSchedulerStepping, AMissingMonitoredMetricIsAnErrorOrWithStrictFalseAWarning) {
  Calls calls;
  int64_t steps = 0;
  Scheduled strict(calls, 8, counting_plateau(steps, "nope"));
  Trainer trainer(quiet({.max_epochs = 1}));
  try {
    trainer.fit(strict);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "CountingPlateau conditioned on metric nope which is not available. Available "
                 "metrics are: ['train_loss', 'val_loss']. Condition can be set using `monitor` "
                 "in the scheduler config");
  }
  Scheduled lenient(calls, 8, counting_plateau(steps, "nope", /*strict=*/false));
  Trainer again(quiet({.max_epochs = 1}));
  const std::string err = warnings_of([&] { again.fit(lenient); });
  EXPECT_NE(err.find("CountingPlateau conditioned on metric nope which is not available but "
                     "strict is set to false. Skipping learning rate update."),
            std::string::npos)
      << err;
  EXPECT_EQ(steps, 0);
}

TEST(LRSchedulerStepping, ManualOptimizationDropsMonitorAndStrictWithAWarning) {
  Calls calls;
  struct Manual : Scheduled {
    Manual(Calls& calls, int64_t train_samples, MakeConfigs make)
        : Scheduled(calls, train_samples, std::move(make)) {
      set_automatic_optimization(false);
    }
  };
  // A plateau scheduler without a monitor is fine: the Module steps it.
  Manual bare(calls, 8, [](torch::optim::SGD& sgd) {
    return std::vector<SchedulerConfig>{{.scheduler = std::make_shared<ReduceLROnPlateau>(sgd)}};
  });
  Trainer trainer(quiet({.max_epochs = 1}));
  EXPECT_NO_THROW(trainer.fit(bare));
  int64_t steps = 0;
  Manual monitored(calls, 8, counting_plateau(steps, "val_loss", /*strict=*/false));
  Trainer again(quiet({.max_epochs = 1}));
  const std::string err = warnings_of([&] { again.fit(monitored); });
  EXPECT_NE(err.find("The scheduler config of CountingPlateau sets ['monitor', 'strict'], which "
                     "manual optimization ignores: call the scheduler's step() in training_step "
                     "yourself"),
            std::string::npos)
      << err;
  EXPECT_EQ(again.lr_scheduler_configs().at(0).monitor, "");
  EXPECT_EQ(steps, 0);
}

TEST(LRSchedulerStepping, ASchedulerOfAnotherOptimizerIsAnError) {
  Calls calls;
  auto other = std::make_shared<torch::optim::SGD>(
      std::vector<torch::Tensor>{torch::zeros({1}, torch::requires_grad())},
      torch::optim::SGDOptions(0.1));
  Scheduled module(calls, 8, [&](torch::optim::SGD&) {
    return std::vector<SchedulerConfig>{{.scheduler = std::make_shared<StepLR>(*other, 1)}};
  });
  Trainer trainer(quiet({.max_epochs = 1}));
  try {
    trainer.fit(module);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "StepLR is attached to an optimizer that configure_optimizers() did not return");
  }
}

TEST(LRSchedulerStepping, OneCycleLRByEpochWarns) {
  Calls calls;
  Scheduled module(calls, 8, [](torch::optim::SGD& sgd) {
    return std::vector<SchedulerConfig>{{.scheduler = std::make_shared<OneCycleLR>(sgd, 0.1, 10)}};
  });
  Trainer trainer(quiet({.max_epochs = 1}));
  const std::string err = warnings_of([&] { trainer.fit(module); });
  EXPECT_NE(err.find("A OneCycleLR scheduler is using interval \"epoch\". Are you sure you "
                     "didn't mean interval \"step\"?"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace fulgur::testing
