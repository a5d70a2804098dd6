#include "fulgur/optim/step_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "optim/python_reference.h"

namespace fulgur {
namespace {

// One SGD param group per rate, each with its own parameter.
std::shared_ptr<torch::optim::SGD> make_sgd(const std::vector<double>& lrs) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (double lr : lrs) {
    groups.emplace_back(std::vector<torch::Tensor>{torch::zeros({1}).requires_grad_()},
                        std::make_unique<torch::optim::SGDOptions>(lr));
  }
  return std::make_shared<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(lrs[0]));
}

std::vector<double> group_lrs(torch::optim::Optimizer& optimizer) {
  std::vector<double> lrs;
  for (auto& group : optimizer.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

struct StepLRCase {
  std::string label;  // the test's name
  std::vector<double> lrs;
  int64_t step_size;
  std::optional<double> gamma;  // unset: StepLR's default
  int steps;
  int override_at = 0;  // before this step the user sets every group's rate to override_lr
  double override_lr = 0.0;
};

// The per-period [last_epoch, last_lr..., group lr...] lines real PyTorch produces.
std::vector<std::vector<double>> pytorch_step_lr(const StepLRCase& c) {
  std::string gamma_arg = c.gamma ? fmt::format(", gamma={}", *c.gamma) : "";
  std::string script = fmt::format(
      "import warnings; warnings.simplefilter('ignore')\n"
      "import torch\n"
      "lrs = [{lrs}]\n"
      "opt = torch.optim.SGD([{{'params': [torch.nn.Parameter(torch.zeros(1))], 'lr': lr}} "
      "for lr in lrs], lr=lrs[0])\n"
      "sched = torch.optim.lr_scheduler.StepLR(opt, step_size={step_size}{gamma})\n"
      "def show(): print(sched.last_epoch, *map(repr, sched.get_last_lr()), "
      "*(repr(g['lr']) for g in opt.param_groups))\n"
      "show()\n"
      "for i in range(1, {steps} + 1):\n"
      "    if i == {override_at}:\n"
      "        for g in opt.param_groups: g['lr'] = {override_lr}\n"
      "    opt.step()\n"
      "    sched.step()\n"
      "    show()\n",
      fmt::arg("lrs", fmt::join(c.lrs, ", ")), fmt::arg("step_size", c.step_size),
      fmt::arg("gamma", gamma_arg), fmt::arg("steps", c.steps),
      fmt::arg("override_at", c.override_at), fmt::arg("override_lr", c.override_lr));
  return testing::number_rows(testing::run_python(script));
}

void PrintTo(const StepLRCase& c, std::ostream* out) { *out << c.label; }

class StepLRAgainstPyTorch : public ::testing::TestWithParam<StepLRCase> {};

TEST_P(StepLRAgainstPyTorch, RatesMatchTorchOptimLrScheduler) {
  const StepLRCase& c = GetParam();
  std::vector<std::vector<double>> expected = pytorch_step_lr(c);
  ASSERT_EQ(expected.size(), static_cast<size_t>(c.steps + 1));
  const size_t groups = c.lrs.size();

  auto sgd = make_sgd(c.lrs);
  std::unique_ptr<StepLR> scheduler = c.gamma
                                          ? std::make_unique<StepLR>(*sgd, c.step_size, *c.gamma)
                                          : std::make_unique<StepLR>(*sgd, c.step_size);
  for (int i = 0; i <= c.steps; ++i) {
    if (i > 0) {
      if (i == c.override_at) {
        for (auto& group : sgd->param_groups()) group.options().set_lr(c.override_lr);
      }
      scheduler->step();
    }
    const std::vector<double>& row = expected[i];
    ASSERT_EQ(row.size(), 1 + 2 * groups) << "period " << i;
    EXPECT_EQ(scheduler->last_epoch(), static_cast<int64_t>(row[0])) << "period " << i;
    ASSERT_EQ(scheduler->get_last_lr().size(), groups);
    std::vector<double> actual_groups = group_lrs(*sgd);
    for (size_t g = 0; g < groups; ++g) {
      EXPECT_NEAR(scheduler->get_last_lr()[g], row[1 + g], 1e-12)
          << "period " << i << " group " << g;
      // The optimizer itself runs at the new rate.
      EXPECT_NEAR(actual_groups[g], row[1 + groups + g], 1e-12) << "period " << i << " group " << g;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StepLRAgainstPyTorch,
    ::testing::Values(
        // SGD lr 0.1, step_size 3, gamma 0.5, 10 steps.
        StepLRCase{.label = "OneGroup", .lrs = {0.1}, .step_size = 3, .gamma = 0.5, .steps = 10},
        // Two param groups with different rates.
        StepLRCase{
            .label = "TwoGroups", .lrs = {0.1, 0.03}, .step_size = 3, .gamma = 0.5, .steps = 10},
        // The default gamma (0.1), decaying every 2 periods.
        StepLRCase{.label = "DefaultGamma",
                   .lrs = {0.05, 1.0},
                   .step_size = 2,
                   .gamma = std::nullopt,
                   .steps = 12},
        // A rate the user sets mid-run is decayed from there on, not overwritten.
        StepLRCase{.label = "UserSetRate",
                   .lrs = {0.1, 0.03},
                   .step_size = 2,
                   .gamma = 0.5,
                   .steps = 9,
                   .override_at = 4,
                   .override_lr = 0.2}),
    [](const ::testing::TestParamInfo<StepLRCase>& info) { return info.param.label; });

TEST(StepLRTest, ConstructionIsPeriodZeroWithTheGroupsRates) {
  auto sgd = make_sgd({0.1, 0.03});
  StepLR scheduler(*sgd, 3, 0.5);
  EXPECT_EQ(scheduler.name(), "StepLR");
  EXPECT_FALSE(scheduler.needs_metric());
  EXPECT_EQ(scheduler.last_epoch(), 0);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.1, 0.03}));
  EXPECT_EQ(group_lrs(*sgd), (std::vector<double>{0.1, 0.03}));
}

TEST(StepLRTest, StateAfterSteps) {
  auto sgd = make_sgd({0.1, 0.03});
  StepLR scheduler(*sgd, 3, 0.5);
  for (int i = 0; i < 2; ++i) scheduler.step();
  EXPECT_EQ(scheduler.last_epoch(), 2);
  EXPECT_EQ(group_lrs(*sgd), (std::vector<double>{0.1, 0.03}));
  scheduler.step();
  EXPECT_EQ(scheduler.last_epoch(), 3);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.05, 0.015}));
  EXPECT_EQ(group_lrs(*sgd), (std::vector<double>{0.05, 0.015}));
  for (int i = 0; i < 3; ++i) scheduler.step();
  EXPECT_EQ(scheduler.last_epoch(), 6);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.025, 0.0075}));
  EXPECT_EQ(group_lrs(*sgd), (std::vector<double>{0.025, 0.0075}));
}

TEST(StepLRTest, AMetricIsAccepted) {
  auto sgd = make_sgd({0.1});
  StepLR scheduler(*sgd, 1, 0.5);
  scheduler.step(3.0);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.05}));
}

TEST(StepLRTest, StepSizeBelowOneIsAConfigError) {
  auto sgd = make_sgd({0.1});
  try {
    StepLR scheduler(*sgd, 0);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "StepLR(step_size=0): step_size must be at least 1 (the number of periods "
                 "between two decays)");
  }
}

TEST(StepLRTest, StateDictHasPyTorchsKeysAndRestoresTheSchedule) {
  auto sgd = make_sgd({0.1});
  StepLR scheduler(*sgd, 2, 0.5);
  for (int i = 0; i < 5; ++i) scheduler.step();
  const auto state = scheduler.state_dict();
  std::vector<std::string> keys;
  for (const auto& entry : state) keys.push_back(entry.key().toStringRef());
  EXPECT_EQ(keys, (std::vector<std::string>{"step_size", "gamma", "base_lrs", "last_epoch",
                                            "verbose", "_step_count",
                                            "_get_lr_called_within_step", "_last_lr"}));
  EXPECT_EQ(state.at("last_epoch").toInt(), 5);
  EXPECT_EQ(state.at("_step_count").toInt(), 6);

  // A scheduler with other settings takes over the schedule (the rates come with the optimizer).
  auto other = make_sgd({0.1 * 0.25});
  StepLR resumed(*other, 7, 0.9);
  resumed.load_state_dict(state, "test.ckpt");
  EXPECT_EQ(resumed.last_epoch(), 5);
  EXPECT_EQ(resumed.get_last_lr(), scheduler.get_last_lr());
  for (int i = 0; i < 3; ++i) scheduler.step(), resumed.step();
  EXPECT_EQ(resumed.get_last_lr(), scheduler.get_last_lr());
  EXPECT_EQ(group_lrs(*other), group_lrs(*sgd));
}

TEST(StepLRTest, ForeignStateIsACheckpointErrorAndChangesNothing) {
  auto sgd = make_sgd({0.1});
  StepLR scheduler(*sgd, 2, 0.5);
  auto state = scheduler.state_dict();
  (void)state.erase("step_size");
  StepLR target(*sgd, 3, 0.5);
  try {
    target.load_state_dict(state, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "x.ckpt: the state of scheduler StepLR has no \"step_size\"; was it saved from "
                 "another scheduler?");
  }
  auto two_groups = scheduler.state_dict();
  two_groups.insert_or_assign("base_lrs", c10::List<double>({0.1, 0.2}));
  EXPECT_THROW(target.check_state_dict(two_groups, "x.ckpt"), CheckpointError);
  EXPECT_EQ(target.last_epoch(), 0);
}

TEST(StepLRTest, ASavedStepSizeBelowOneIsACheckpointError) {
  auto sgd = make_sgd({0.1});
  StepLR scheduler(*sgd, 2);
  auto state = scheduler.state_dict();
  state.insert_or_assign("step_size", 0);
  try {
    scheduler.check_state_dict(state, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(), "x.ckpt: the state of scheduler StepLR has a step_size below 1");
  }
}

}  // namespace
}  // namespace fulgur
