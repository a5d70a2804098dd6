// LearningRateMonitor: Lightning's names (class, "-N" for a second optimizer of a class,
// "/pgN" for param groups, a scheduler's configured name), when rates are written (epoch start
// for epoch-interval schedulers, every log_every_n_steps for step-interval ones), momentum and
// weight decay, callback metrics, and the errors.
#include "fulgur/callbacks/learning_rate_monitor.h"

#include <gtest/gtest.h>

#include "fulgur/errors.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

using Row = std::pair<int64_t, std::map<std::string, double>>;

// SGD with two param groups (weight at 0.1, bias at 0.2) and a StepLR halving both.
class TwoGroups : public RecordingModule {
 public:
  TwoGroups(Calls& calls, std::string interval, std::string scheduler_name = "")
      : RecordingModule(calls, 8, 0),
        interval_(std::move(interval)),
        scheduler_name_(std::move(scheduler_name)) {}
  OptimizerConfig configure_optimizers() override {
    auto params = named_parameters();
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{params["layer.weight"]},
                        std::make_unique<torch::optim::SGDOptions>(0.1));
    groups.emplace_back(std::vector<torch::Tensor>{params["layer.bias"]},
                        std::make_unique<torch::optim::SGDOptions>(0.2));
    auto sgd = std::make_shared<torch::optim::SGD>(
        groups, torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4));
    auto scheduler = std::make_shared<StepLR>(*sgd, 1, 0.5);
    return OptimizerConfig(
        {sgd}, {SchedulerConfig{.scheduler = scheduler, .interval = interval_,
                                .name = scheduler_name_}});
  }

 private:
  std::string interval_;
  std::string scheduler_name_;
};

struct Fitted {
  std::vector<Row> rows;
  std::vector<std::string> names;
  Metrics callback_metrics;
  std::map<std::string, std::vector<double>> lrs;
  std::string warnings;
};

Fitted fit(Module& module, LearningRateMonitorOptions options, int64_t max_epochs,
           int64_t log_every_n_steps = 50) {
  auto logger = std::make_shared<MemoryLogger>();
  auto monitor = std::make_shared<LearningRateMonitor>(std::move(options));
  TrainerOptions o{.logger = logger,
                   .callbacks = {monitor},
                   .max_epochs = max_epochs,
                   .num_sanity_val_steps = 0,
                   .log_every_n_steps = log_every_n_steps};
  o.enable_checkpointing = false;
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  Trainer trainer(o);
  ::testing::internal::CaptureStderr();
  trainer.fit(module);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  return {logger->rows, monitor->names(), trainer.callback_metrics(), monitor->lrs(), warnings};
}

TEST(LearningRateMonitor, EpochIntervalRatesPerParamGroupAtEachEpochStart) {
  Calls calls;
  TwoGroups module(calls, "epoch");
  const auto fitted = fit(module, {}, 3);
  EXPECT_EQ(fitted.names, (std::vector<std::string>{"lr-SGD/pg1", "lr-SGD/pg2"}));
  // 4 batches per epoch: epochs start at steps 0, 4 and 8.
  EXPECT_EQ(fitted.rows, (std::vector<Row>{{0, {{"lr-SGD/pg1", 0.1}, {"lr-SGD/pg2", 0.2}}},
                                           {4, {{"lr-SGD/pg1", 0.05}, {"lr-SGD/pg2", 0.1}}},
                                           {8, {{"lr-SGD/pg1", 0.025}, {"lr-SGD/pg2", 0.05}}}}));
  EXPECT_DOUBLE_EQ(fitted.callback_metrics.at("lr-SGD/pg1"), 0.025);
  // Lightning's `lrs`: every rate written, per name.
  EXPECT_EQ(fitted.lrs, (std::map<std::string, std::vector<double>>{
                            {"lr-SGD/pg1", {0.1, 0.05, 0.025}}, {"lr-SGD/pg2", {0.2, 0.1, 0.05}}}));
}

TEST(LearningRateMonitor, StepIntervalRatesEveryLogEveryNSteps) {
  Calls calls;
  TwoGroups module(calls, "step", "warmup");
  const auto fitted = fit(module, {.log_momentum = true, .log_weight_decay = true}, 1, 2);
  EXPECT_EQ(fitted.names,
            (std::vector<std::string>{"warmup/pg1", "warmup/pg1-momentum",
                                      "warmup/pg1-weight_decay", "warmup/pg2",
                                      "warmup/pg2-momentum", "warmup/pg2-weight_decay"}));
  // Written at the start of the batches that take steps 1 and 3 (the 2nd and 4th), with the
  // rates the StepLR set after the step before: 0.1 × 0.5 and 0.1 × 0.5^3.
  ASSERT_EQ(fitted.rows.size(), 2u);
  EXPECT_EQ(fitted.rows[0].first, 1);
  EXPECT_DOUBLE_EQ(fitted.rows[0].second.at("warmup/pg1"), 0.05);
  EXPECT_DOUBLE_EQ(fitted.rows[0].second.at("warmup/pg2"), 0.1);
  EXPECT_EQ(fitted.rows[1].first, 3);
  EXPECT_DOUBLE_EQ(fitted.rows[1].second.at("warmup/pg1"), 0.0125);
  // Each group has its own options: momentum and weight decay are SGDOptions' defaults (0)
  // there, not the optimizer-wide ones.
  EXPECT_DOUBLE_EQ(fitted.rows[1].second.at("warmup/pg2-momentum"), 0.0);
  EXPECT_DOUBLE_EQ(fitted.rows[1].second.at("warmup/pg2-weight_decay"), 0.0);
}

TEST(LearningRateMonitor, AnOptimizerWithoutSchedulerIsWrittenAtEveryMoment) {
  Calls calls;
  class AdamOnly : public RecordingModule {
   public:
    using RecordingModule::RecordingModule;
    OptimizerConfig configure_optimizers() override {
      return std::make_shared<torch::optim::Adam>(
          parameters(), torch::optim::AdamOptions(1e-3).betas({0.8, 0.99}));
    }
  } module(calls, 4, 0);
  const auto fitted = fit(module, {.log_momentum = true}, 2, 1);
  EXPECT_EQ(fitted.names, (std::vector<std::string>{"lr-Adam", "lr-Adam-momentum"}));
  // 2 batches per epoch: an epoch-start row and one per batch (log_every_n_steps = 1).
  ASSERT_EQ(fitted.rows.size(), 6u);
  for (const auto& [step, metrics] : fitted.rows) {
    EXPECT_DOUBLE_EQ(metrics.at("lr-Adam"), 1e-3);
    EXPECT_DOUBLE_EQ(metrics.at("lr-Adam-momentum"), 0.8);
  }
}

// Lightning warns when some optimizers lack torch.optim's "momentum" default and some lack
// "betas": SGD or Adam alone have one of them, SGD with Adam, or Adagrad, do not.
TEST(LearningRateMonitor, LogMomentumWarnsAsLightning) {
  const std::string warning =
      "You have set log_momentum=True, but some optimizers do not have momentum. This will log a "
      "value 0 for the momentum.";
  class Optimizers : public RecordingModule {
   public:
    Optimizers(Calls& calls, std::vector<std::string> kinds)
        : RecordingModule(calls, 4, 0), kinds_(std::move(kinds)) {
      if (kinds_.size() > 1) set_automatic_optimization(false);
    }
    torch::Tensor training_step(Batch& batch, int64_t idx) override {
      if (automatic_optimization()) return RecordingModule::training_step(batch, idx);
      for (auto& o : optimizers()) {
        o->zero_grad();
        manual_backward(RecordingModule::training_step(batch, idx));
        o->step();
      }
      return {};
    }
    OptimizerConfig configure_optimizers() override {
      std::vector<std::shared_ptr<torch::optim::Optimizer>> out;
      for (const auto& kind : kinds_) {
        if (kind == "SGD") {
          out.push_back(std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1)));
        } else if (kind == "Adam") {
          out.push_back(std::make_shared<torch::optim::Adam>(parameters()));
        } else {
          out.push_back(std::make_shared<torch::optim::Adagrad>(parameters()));
        }
      }
      return OptimizerConfig(out);
    }

   private:
    std::vector<std::string> kinds_;
  };
  for (const auto& [kinds, warns] : std::vector<std::pair<std::vector<std::string>, bool>>{
           {{"SGD"}, false}, {{"Adam"}, false}, {{"Adagrad"}, true}, {{"SGD", "Adam"}, true}}) {
    Calls calls;
    Optimizers module(calls, kinds);
    const auto fitted = fit(module, {.log_momentum = true}, 1);
    EXPECT_EQ(fitted.warnings.find(warning) != std::string::npos, warns)
        << kinds.front() << " x" << kinds.size() << ": " << fitted.warnings;
  }
}

TEST(LearningRateMonitor, ANamedIntervalWritesEverythingAtThatMomentOnly) {
  Calls calls;
  TwoGroups module(calls, "step");
  const auto fitted = fit(module, {.logging_interval = "epoch"}, 2);
  ASSERT_EQ(fitted.rows.size(), 2u);
  EXPECT_EQ(fitted.rows[1].first, 4);
  EXPECT_DOUBLE_EQ(fitted.rows[1].second.at("lr-SGD/pg1"), 0.1 * 0.0625);
}

TEST(LearningRateMonitor, Errors) {
  try {
    LearningRateMonitor({.logging_interval = "batch"});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "logging_interval should be `step` or `epoch` or `None` (unset), got \"batch\"");
  }
  Calls calls;
  TwoGroups module(calls, "epoch");
  Trainer trainer(quiet({.logger = false,
                         .callbacks = {std::make_shared<LearningRateMonitor>()},
                         .max_epochs = 1}));
  try {
    trainer.fit(module);
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "Cannot use `LearningRateMonitor` callback with `Trainer` that has no logger.");
  }
}

// An optimizer that gains a param group during the fit (a backbone unfrozen after epoch 0).
class GainsAGroup : public RecordingModule {
 public:
  explicit GainsAGroup(Calls& calls) : RecordingModule(calls, 8, 0) { with_scheduler = false; }
  OptimizerConfig configure_optimizers() override {
    sgd_ = std::make_shared<torch::optim::SGD>(
        std::vector<torch::Tensor>{named_parameters()["layer.weight"]}, torch::optim::SGDOptions(0.1));
    return sgd_;
  }
  void on_train_epoch_end() override {
    if (current_epoch() != 0) return;
    sgd_->add_param_group(torch::optim::OptimizerParamGroup(
        {named_parameters()["layer.bias"]}, std::make_unique<torch::optim::SGDOptions>(0.2)));
  }

 private:
  std::shared_ptr<torch::optim::SGD> sgd_;
};

TEST(LearningRateMonitor, AParamGroupAddedDuringTheFitGetsItsOwnName) {
  Calls calls;
  GainsAGroup module(calls);
  const auto fitted = fit(module, {.logging_interval = "epoch"}, 2);
  EXPECT_EQ(fitted.rows, (std::vector<Row>{{0, {{"lr-SGD", 0.1}}},
                                           {4, {{"lr-SGD/pg1", 0.1}, {"lr-SGD/pg2", 0.2}}}}));
  EXPECT_EQ(fitted.names, (std::vector<std::string>{"lr-SGD/pg1", "lr-SGD/pg2"}));
}

}  // namespace
}  // namespace fulgur::testing
