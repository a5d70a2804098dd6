// The LR schedulers against real PyTorch (torch.optim.lr_scheduler of python3-torch 1.13): the
// same settings, stepped the same number of times, give the same rates (and momentum, which
// OneCycleLR cycles) to 1e-12 relative at every step. A state saved mid-run and loaded into a
// fresh scheduler continues exactly as the uninterrupted run, in fulgur and in Python's torch.
// Bad settings are ConfigErrors whose texts are pinned here.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/optim/chained_scheduler.h"
#include "fulgur/optim/constant_lr.h"
#include "fulgur/optim/cosine_annealing_lr.h"
#include "fulgur/optim/cosine_annealing_warm_restarts.h"
#include "fulgur/optim/cyclic_lr.h"
#include "fulgur/optim/exponential_lr.h"
#include "fulgur/optim/lambda_lr.h"
#include "fulgur/optim/linear_lr.h"
#include "fulgur/optim/multi_step_lr.h"
#include "fulgur/optim/multiplicative_lr.h"
#include "fulgur/optim/one_cycle_lr.h"
#include "fulgur/optim/polynomial_lr.h"
#include "fulgur/optim/reduce_lr_on_plateau.h"
#include "fulgur/optim/sequential_lr.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/optim/swa_lr.h"
#include "optim/python_reference.h"

namespace fulgur {
namespace {

using testing::python_float;
using testing::python_list;
using Factory = std::function<std::shared_ptr<LRScheduler>(torch::optim::Optimizer&)>;

// One param group per rate, each with its own parameter.
std::shared_ptr<torch::optim::Optimizer> make_optimizer(const std::string& kind,
                                                        const std::vector<double>& lrs) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (double lr : lrs) {
    std::vector<torch::Tensor> params{torch::zeros({1}).requires_grad_()};
    if (kind == "adam") {
      groups.emplace_back(params, std::make_unique<torch::optim::AdamOptions>(lr));
    } else if (kind == "adagrad") {
      groups.emplace_back(params, std::make_unique<torch::optim::AdagradOptions>(lr));
    } else {
      groups.emplace_back(params, std::make_unique<torch::optim::SGDOptions>(lr));
    }
  }
  if (kind == "adam") {
    return std::make_shared<torch::optim::Adam>(std::move(groups),
                                                torch::optim::AdamOptions(lrs[0]));
  }
  if (kind == "adagrad") {
    return std::make_shared<torch::optim::Adagrad>(std::move(groups),
                                                   torch::optim::AdagradOptions(lrs[0]));
  }
  return std::make_shared<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(lrs[0]));
}

std::shared_ptr<torch::optim::Optimizer> make_sgd(const std::vector<double>& lrs) {
  return make_optimizer("sgd", lrs);
}

// SGD's momentum or Adam's first beta: what OneCycleLR cycles.
double momentum_of(torch::optim::OptimizerParamGroup& group) {
  if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&group.options())) {
    return std::get<0>(adam->betas());
  }
  return static_cast<torch::optim::SGDOptions&>(group.options()).momentum();
}

void set_momentum(torch::optim::OptimizerParamGroup& group, double momentum) {
  if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&group.options())) {
    adam->betas({momentum, std::get<1>(adam->betas())});
  } else {
    static_cast<torch::optim::SGDOptions&>(group.options()).momentum(momentum);
  }
}

// [last_epoch, lr of each group..., momentum of each group...]: what the Python side prints.
std::vector<double> row_of(const LRScheduler& scheduler, torch::optim::Optimizer& optimizer) {
  std::vector<double> row{static_cast<double>(scheduler.last_epoch())};
  for (auto& group : optimizer.param_groups()) row.push_back(group.options().get_lr());
  for (auto& group : optimizer.param_groups()) row.push_back(momentum_of(group));
  return row;
}

void expect_rows_near(const std::vector<double>& actual, const std::vector<double>& expected,
                      const std::string& where) {
  ASSERT_EQ(actual.size(), expected.size()) << where;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double tolerance = 1e-12 * std::max(std::abs(actual[i]), std::abs(expected[i]));
    EXPECT_NEAR(actual[i], expected[i], tolerance) << where << ", column " << i;
  }
}

struct SchedulerCase {
  std::string label;              // the test's name
  std::string optimizer = "sgd";  // "sgd" or "adam"
  std::vector<double> lrs;
  std::string python;  // the scheduler in Python, built on `opt` (and `S` = lr_scheduler)
  Factory make;        // the same scheduler in fulgur
  int steps;
  std::vector<double> metrics = {};  // step(metric) arguments, for ReduceLROnPlateau
  int override_at = 0;  // before this step the user sets every group's rate to override_lr
  double override_lr = 0.0;
  int resume_at = 0;  // where the state round trips stop and resume (0: halfway)
};

void PrintTo(const SchedulerCase& c, std::ostream* out) { *out << c.label; }

// The Python side: builds the optimizer and the scheduler, optionally loads `state_path` and
// sets the groups to `resume_row`'s rates and momentum (as the optimizer's state would), then
// steps from period `first` to c.steps, printing one row per period (and one before).
std::string python_script(const SchedulerCase& c, int first, const std::string& state_path = "",
                          const std::vector<double>& resume_row = {}) {
  std::string metrics = python_list(c.metrics);
  std::string load;
  if (!state_path.empty()) {
    const size_t groups = c.lrs.size();
    std::vector<double> lrs(resume_row.begin() + 1, resume_row.begin() + 1 + groups);
    std::vector<double> momenta(resume_row.begin() + 1 + groups, resume_row.end());
    load = fmt::format(
        "sched.load_state_dict(torch.load('{}'))\n"
        "for g, lr, m in zip(opt.param_groups, {}, {}):\n"
        "    g['lr'] = lr\n"
        "    set_momentum(g, m)\n",
        state_path, python_list(lrs), python_list(momenta));
  }
  return fmt::format(
      "import warnings; warnings.simplefilter('ignore')\n"
      "import torch\n"
      "from torch.optim import lr_scheduler as S\n"
      "lrs = {lrs}\n"
      "params = [torch.nn.Parameter(torch.zeros(1)) for _ in lrs]\n"
      "groups = [{{'params': [p], 'lr': lr}} for p, lr in zip(params, lrs)]\n"
      "opt = torch.optim.{optimizer}(groups, lr=lrs[0])\n"
      "def momentum(g): return g['betas'][0] if 'betas' in g else g['momentum']\n"
      "def set_momentum(g, m):\n"
      "    if 'betas' in g: g['betas'] = (m, g['betas'][1])\n"
      "    else: g['momentum'] = m\n"
      "sched = {python}\n"
      "{load}"
      "metrics = {metrics}\n"
      // PyTorch's ChainedScheduler keeps no period count: the loop's stands in.
      "def show(i): print(i if isinstance(sched, S.ChainedScheduler) else sched.last_epoch, "
      "*(repr(g['lr']) for g in opt.param_groups), "
      "*(repr(momentum(g)) for g in opt.param_groups))\n"
      "if {first} == 0: show(0)\n"
      "for i in range({first} + 1, {steps} + 1):\n"
      "    if i == {override_at}:\n"
      "        for g in opt.param_groups: g['lr'] = {override_lr}\n"
      "    opt.step()\n"
      "    if metrics: sched.step(metrics[i - 1])\n"
      "    else: sched.step()\n"
      "    show(i)\n",
      fmt::arg("lrs", python_list(c.lrs)),
      fmt::arg("optimizer", c.optimizer == "adam" ? "Adam" : "SGD"), fmt::arg("python", c.python),
      fmt::arg("load", load), fmt::arg("metrics", metrics), fmt::arg("first", first),
      fmt::arg("steps", c.steps), fmt::arg("override_at", c.override_at),
      fmt::arg("override_lr", python_float(c.override_lr)));
}

// Steps `scheduler` from its current period to `last`, as the Python script does.
void step_to(const SchedulerCase& c, LRScheduler& scheduler, torch::optim::Optimizer& optimizer,
             int last, std::vector<std::vector<double>>* rows = nullptr) {
  for (int i = static_cast<int>(scheduler.last_epoch()) + 1; i <= last; ++i) {
    if (i == c.override_at) {
      for (auto& group : optimizer.param_groups()) group.options().set_lr(c.override_lr);
    }
    if (c.metrics.empty()) {
      scheduler.step();
    } else {
      scheduler.step(c.metrics[i - 1]);
    }
    if (rows) rows->push_back(row_of(scheduler, optimizer));
  }
}

class SchedulerAgainstPyTorch : public ::testing::TestWithParam<SchedulerCase> {
 protected:
  int resume_at() const {
    const SchedulerCase& c = GetParam();
    return c.resume_at > 0 ? c.resume_at : c.steps / 2;
  }
};

TEST_P(SchedulerAgainstPyTorch, RatesMatchTorchAtEveryStep) {
  const SchedulerCase& c = GetParam();
  const auto expected = testing::number_rows(testing::run_python(python_script(c, 0)));
  ASSERT_EQ(expected.size(), static_cast<size_t>(c.steps + 1));

  auto optimizer = make_optimizer(c.optimizer, c.lrs);
  std::shared_ptr<LRScheduler> scheduler = c.make(*optimizer);
  std::vector<std::vector<double>> actual{row_of(*scheduler, *optimizer)};
  step_to(c, *scheduler, *optimizer, c.steps, &actual);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    expect_rows_near(actual[i], expected[i], fmt::format("period {}", i));
  }
  // get_last_lr() is what the groups hold.
  std::vector<double> group_lrs(actual.back().begin() + 1,
                                actual.back().begin() + 1 + c.lrs.size());
  EXPECT_EQ(scheduler->get_last_lr(), group_lrs);
}

TEST_P(SchedulerAgainstPyTorch, StateDictRoundTripContinuesLikeTheUninterruptedRun) {
  const SchedulerCase& c = GetParam();
  auto optimizer = make_optimizer(c.optimizer, c.lrs);
  std::shared_ptr<LRScheduler> scheduler = c.make(*optimizer);
  step_to(c, *scheduler, *optimizer, resume_at());
  // Through the checkpoint format: torch::pickle_save and back.
  const std::vector<char> bytes = torch::pickle_save(scheduler->state_dict());
  const auto state = torch::pickle_load(bytes).toGenericDict();

  // A fresh optimizer and scheduler with the same settings; the optimizer's rates and momentum
  // come with its own state, so they are copied here.
  auto resumed_optimizer = make_optimizer(c.optimizer, c.lrs);
  std::shared_ptr<LRScheduler> resumed = c.make(*resumed_optimizer);
  resumed->load_state_dict(state, "resume.ckpt");
  for (size_t g = 0; g < c.lrs.size(); ++g) {
    auto& from = optimizer->param_groups()[g];
    auto& to = resumed_optimizer->param_groups()[g];
    to.options().set_lr(from.options().get_lr());
    set_momentum(to, momentum_of(from));
  }
  EXPECT_EQ(resumed->last_epoch(), scheduler->last_epoch());
  EXPECT_EQ(resumed->get_last_lr(), scheduler->get_last_lr());

  std::vector<std::vector<double>> uninterrupted, continued;
  step_to(c, *scheduler, *optimizer, c.steps, &uninterrupted);
  step_to(c, *resumed, *resumed_optimizer, c.steps, &continued);
  EXPECT_EQ(continued, uninterrupted);
}

TEST_P(SchedulerAgainstPyTorch, PythonLoadsTheStateAndContinuesTheSame) {
  const SchedulerCase& c = GetParam();
  auto optimizer = make_optimizer(c.optimizer, c.lrs);
  std::shared_ptr<LRScheduler> scheduler = c.make(*optimizer);
  step_to(c, *scheduler, *optimizer, resume_at());
  const std::string path =
      ::testing::TempDir() + fmt::format("fulgur_scheduler_state_{}.pt", ::getpid());
  {
    const std::vector<char> bytes = torch::pickle_save(scheduler->state_dict());
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  }
  const std::string script = python_script(c, resume_at(), path, row_of(*scheduler, *optimizer));
  const auto expected = testing::number_rows(testing::run_python(script));
  std::remove(path.c_str());

  std::vector<std::vector<double>> actual;
  step_to(c, *scheduler, *optimizer, c.steps, &actual);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    expect_rows_near(actual[i], expected[i], fmt::format("period {}", resume_at() + 1 + i));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SchedulerAgainstPyTorch,
    ::testing::Values(
        // ---- MultiStepLR ----
        SchedulerCase{
            .label = "MultiStepLR",
            .lrs = {0.1},
            .python = "S.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.5)",
            .make =
                [](auto& o) {
                  return std::make_shared<MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 9}, 0.5);
                },
            .steps = 12},
        SchedulerCase{.label = "MultiStepLRTwoGroupsDefaultGamma",
                      .lrs = {0.1, 0.03},
                      .python = "S.MultiStepLR(opt, milestones=[3, 6])",
                      .make =
                          [](auto& o) {
                            return std::make_shared<MultiStepLR>(o, std::vector<int64_t>{3, 6});
                          },
                      .steps = 10,
                      .override_at = 5,
                      .override_lr = 0.2},
        // A milestone 0 decays at construction.
        SchedulerCase{
            .label = "MultiStepLRMilestoneZero",
            .lrs = {0.1, 0.5},
            .python = "S.MultiStepLR(opt, milestones=[0, 4], gamma=0.25)",
            .make =
                [](auto& o) {
                  return std::make_shared<MultiStepLR>(o, std::vector<int64_t>{0, 4}, 0.25);
                },
            .steps = 6},
        // ---- ExponentialLR ----
        SchedulerCase{.label = "ExponentialLR",
                      .lrs = {0.1, 0.03},
                      .python = "S.ExponentialLR(opt, gamma=0.9)",
                      .make = [](auto& o) { return std::make_shared<ExponentialLR>(o, 0.9); },
                      .steps = 25,
                      .override_at = 10,
                      .override_lr = 0.05},
        // ---- CosineAnnealingLR ----
        // Down and up twice: the recursion crosses its special case at periods 11 and 31.
        SchedulerCase{
            .label = "CosineAnnealingLR",
            .lrs = {0.1, 0.03},
            .python = "S.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)",
            .make = [](auto& o) { return std::make_shared<CosineAnnealingLR>(o, 10, 0.001); },
            .steps = 45},
        SchedulerCase{.label = "CosineAnnealingLRDefaultEtaMin",
                      .lrs = {0.5},
                      .python = "S.CosineAnnealingLR(opt, T_max=7)",
                      .make = [](auto& o) { return std::make_shared<CosineAnnealingLR>(o, 7); },
                      .steps = 30},
        // A rate set by the user is annealed from there on (the chainable form).
        SchedulerCase{
            .label = "CosineAnnealingLRUserSetRate",
            .lrs = {0.1, 0.2},
            .python = "S.CosineAnnealingLR(opt, T_max=12, eta_min=0.01)",
            .make = [](auto& o) { return std::make_shared<CosineAnnealingLR>(o, 12, 0.01); },
            .steps = 20,
            .override_at = 6,
            .override_lr = 0.3},
        // ---- SWALR (torch.optim.swa_utils) ----
        SchedulerCase{.label = "SWALRDefaultsCos",
                      .lrs = {0.5},
                      .python = "torch.optim.swa_utils.SWALR(opt, swa_lr=0.05)",
                      .make = [](auto& o) { return std::make_shared<SWALR>(o, 0.05); },
                      .steps = 14},
        // A rate set by the user mid-anneal is annealed from there on, as in PyTorch.
        SchedulerCase{
            .label = "SWALRLinearPerGroupUserSetRate",
            .lrs = {0.1, 0.2},
            .python = "torch.optim.swa_utils.SWALR(opt, swa_lr=[0.01, 0.02], anneal_epochs=6, "
                      "anneal_strategy='linear')",
            .make =
                [](auto& o) {
                  return std::make_shared<SWALR>(o, std::vector<double>{0.01, 0.02}, 6, "linear");
                },
            .steps = 12,
            .override_at = 3,
            .override_lr = 0.3},
        // anneal_epochs 0: swa_lr from construction on.
        SchedulerCase{.label = "SWALRNoAnnealing",
                      .lrs = {0.1, 0.03},
                      .python = "torch.optim.swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=0)",
                      .make = [](auto& o) { return std::make_shared<SWALR>(o, 0.02, 0); },
                      .steps = 4},
        // ---- LinearLR ----
        SchedulerCase{.label = "LinearLRDefaults",
                      .lrs = {0.1, 0.03},
                      .python = "S.LinearLR(opt)",
                      .make = [](auto& o) { return std::make_shared<LinearLR>(o); },
                      .steps = 8},
        SchedulerCase{.label = "LinearLRDecay",
                      .lrs = {0.2},
                      .python = "S.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=6)",
                      .make = [](auto& o) { return std::make_shared<LinearLR>(o, 1.0, 0.1, 6); },
                      .steps = 9},
        // ---- OneCycleLR ----
        SchedulerCase{
            .label = "OneCycleLRCos",
            .lrs = {0.01, 0.01},
            .python = "S.OneCycleLR(opt, max_lr=[0.1, 0.5], total_steps=20, cycle_momentum=False)",
            .make =
                [](auto& o) {
                  return std::make_shared<OneCycleLR>(o, std::vector<double>{0.1, 0.5}, 20,
                                                      OneCycleLROptions{.cycle_momentum = false});
                },
            .steps = 20},
        SchedulerCase{
            .label = "OneCycleLRLinearThreePhase",
            .lrs = {0.01},
            .python = "S.OneCycleLR(opt, max_lr=0.3, total_steps=25, pct_start=0.4, "
                      "anneal_strategy='linear', div_factor=10.0, final_div_factor=100.0, "
                      "three_phase=True, cycle_momentum=False)",
            .make =
                [](auto& o) {
                  return std::make_shared<OneCycleLR>(o, 0.3, 25,
                                                      OneCycleLROptions{.pct_start = 0.4,
                                                                        .anneal_strategy = "linear",
                                                                        .cycle_momentum = false,
                                                                        .div_factor = 10.0,
                                                                        .final_div_factor = 100.0,
                                                                        .three_phase = true});
                },
            .steps = 25},
        // PyTorch's default cycles SGD's momentum (and turns it on).
        SchedulerCase{.label = "OneCycleLRCyclesSgdMomentum",
                      .lrs = {0.01, 0.02},
                      .python = "S.OneCycleLR(opt, max_lr=0.2, total_steps=15)",
                      .make = [](auto& o) { return std::make_shared<OneCycleLR>(o, 0.2, 15); },
                      .steps = 15},
        SchedulerCase{.label = "OneCycleLRCyclesAdamBeta1",
                      .optimizer = "adam",
                      .lrs = {0.001},
                      .python = "S.OneCycleLR(opt, max_lr=0.01, total_steps=16, pct_start=0.25, "
                                "base_momentum=0.8, max_momentum=0.9)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<OneCycleLR>(
                                o, 0.01, 16,
                                OneCycleLROptions{
                                    .pct_start = 0.25, .base_momentum = 0.8, .max_momentum = 0.9});
                          },
                      .steps = 16},
        // ---- SequentialLR ----
        // Warm-up then cosine: the cosine starts from the groups' initial rates.
        SchedulerCase{
            .label = "SequentialLRWarmupCosine",
            .lrs = {0.1, 0.03},
            .python = "S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=3), "
                      "S.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)], milestones=[3])",
            .make =
                [](auto& o) {
                  return std::make_shared<SequentialLR>(
                      o,
                      std::vector<std::shared_ptr<LRScheduler>>{
                          std::make_shared<LinearLR>(o, 0.1, 1.0, 3),
                          std::make_shared<CosineAnnealingLR>(o, 10, 0.001)},
                      std::vector<int64_t>{3});
                },
            .steps = 20},
        // Three schedulers; StepLR and MultiStepLR take over with their closed forms. Resumed
        // after the last hand-over: a MultiStepLR state comes back to Python as a dict, not
        // the Counter its closed form needs.
        SchedulerCase{
            .label = "SequentialLRThreeSchedulers",
            .lrs = {0.1},
            .python = "S.SequentialLR(opt, [S.ExponentialLR(opt, gamma=0.9), "
                      "S.StepLR(opt, step_size=2, gamma=0.5), "
                      "S.MultiStepLR(opt, milestones=[1, 3], gamma=0.3)], milestones=[4, 8])",
            .make =
                [](auto& o) {
                  return std::make_shared<SequentialLR>(
                      o,
                      std::vector<std::shared_ptr<LRScheduler>>{
                          std::make_shared<ExponentialLR>(o, 0.9),
                          std::make_shared<StepLR>(o, 2, 0.5),
                          std::make_shared<MultiStepLR>(o, std::vector<int64_t>{1, 3}, 0.3)},
                      std::vector<int64_t>{4, 8});
                },
            .steps = 14,
            .resume_at = 9},
        // A OneCycleLR warm-up: the initial rates are its own.
        SchedulerCase{
            .label = "SequentialLROneCycleThenConstant",
            .lrs = {0.05},
            .python = "S.SequentialLR(opt, [S.OneCycleLR(opt, max_lr=0.4, total_steps=6, "
                      "cycle_momentum=False), S.ExponentialLR(opt, gamma=0.8)], milestones=[6])",
            .make =
                [](auto& o) {
                  return std::make_shared<SequentialLR>(
                      o,
                      std::vector<std::shared_ptr<LRScheduler>>{
                          std::make_shared<OneCycleLR>(o, 0.4, 6,
                                                       OneCycleLROptions{.cycle_momentum = false}),
                          std::make_shared<ExponentialLR>(o, 0.8)},
                      std::vector<int64_t>{6});
                },
            .steps = 10,
            .resume_at = 4},
        // ---- ConstantLR ----
        // The user's rate set mid-warm-up is chained: multiplied back up at total_iters.
        SchedulerCase{.label = "ConstantLRUserSetRate",
                      .lrs = {0.1, 0.03},
                      .python = "S.ConstantLR(opt, factor=0.5, total_iters=4)",
                      .make = [](auto& o) { return std::make_shared<ConstantLR>(o, 0.5, 4); },
                      .steps = 8,
                      .override_at = 2,
                      .override_lr = 0.2},
        SchedulerCase{.label = "ConstantLRDefaults",
                      .lrs = {0.3},
                      .python = "S.ConstantLR(opt)",
                      .make = [](auto& o) { return std::make_shared<ConstantLR>(o); },
                      .steps = 7},
        // ---- PolynomialLR ----
        SchedulerCase{.label = "PolynomialLRSquared",
                      .lrs = {0.1, 0.03},
                      .python = "S.PolynomialLR(opt, total_iters=6, power=2.0)",
                      .make = [](auto& o) { return std::make_shared<PolynomialLR>(o, 6, 2.0); },
                      .steps = 9},
        SchedulerCase{.label = "PolynomialLRDefaultsUserSetRate",
                      .lrs = {0.2},
                      .python = "S.PolynomialLR(opt)",
                      .make = [](auto& o) { return std::make_shared<PolynomialLR>(o); },
                      .steps = 7,
                      .override_at = 3,
                      .override_lr = 0.5},
        // ---- CosineAnnealingWarmRestarts ----
        // Cycles of 3, 6 and 12 periods; resumed inside the second.
        SchedulerCase{
            .label = "CosineAnnealingWarmRestartsTMult2",
            .lrs = {0.1, 0.03},
            .python = "S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
            .make =
                [](auto& o) {
                  return std::make_shared<CosineAnnealingWarmRestarts>(o, 3, 2, 0.001);
                },
            .steps = 25,
            .resume_at = 6},
        SchedulerCase{
            .label = "CosineAnnealingWarmRestartsTMult1",
            .lrs = {0.5},
            .python = "S.CosineAnnealingWarmRestarts(opt, T_0=4)",
            .make = [](auto& o) { return std::make_shared<CosineAnnealingWarmRestarts>(o, 4); },
            .steps = 13},
        // ---- LambdaLR and MultiplicativeLR ----
        SchedulerCase{.label = "LambdaLROneFunction",
                      .lrs = {0.1, 0.03},
                      .python = "S.LambdaLR(opt, lambda e: 0.95 ** e)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<LambdaLR>(o, [](int64_t e) {
                              return std::pow(0.95, static_cast<double>(e));
                            });
                          },
                      .steps = 10},
        SchedulerCase{.label = "LambdaLRPerGroup",
                      .lrs = {0.1, 0.2},
                      .python = "S.LambdaLR(opt, [lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1)])",
                      .make =
                          [](auto& o) {
                            return std::make_shared<LambdaLR>(
                                o,
                                std::vector<LrLambda>{
                                    [](int64_t e) { return std::pow(0.9, static_cast<double>(e)); },
                                    [](int64_t e) { return 1.0 / static_cast<double>(e + 1); }});
                          },
                      .steps = 8},
        SchedulerCase{.label = "MultiplicativeLRUserSetRate",
                      .lrs = {0.1, 0.03},
                      .python = "S.MultiplicativeLR(opt, lambda e: 0.9)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<MultiplicativeLR>(o,
                                                                      [](int64_t) { return 0.9; });
                          },
                      .steps = 9,
                      .override_at = 4,
                      .override_lr = 0.5},
        SchedulerCase{
            .label = "MultiplicativeLRPerGroup",
            .lrs = {0.1, 0.2},
            .python = "S.MultiplicativeLR(opt, [lambda e: 1.0 - 0.05 * e, lambda e: 0.8])",
            .make =
                [](auto& o) {
                  return std::make_shared<MultiplicativeLR>(
                      o, std::vector<LrLambda>{
                             [](int64_t e) { return 1.0 - 0.05 * static_cast<double>(e); },
                             [](int64_t) { return 0.8; }});
                },
            .steps = 8},
        // ---- CyclicLR ----
        // PyTorch's default cycles SGD's momentum against the rate (and turns it on).
        SchedulerCase{
            .label = "CyclicLRTriangularCyclesMomentum",
            .lrs = {0.5, 0.5},
            .python = "S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2)",
            .make =
                [](auto& o) {
                  return std::make_shared<CyclicLR>(
                      o, 0.01, 0.1, CyclicLROptions{.step_size_up = 3, .step_size_down = 2});
                },
            .steps = 17,
            .resume_at = 7},
        SchedulerCase{.label = "CyclicLRTriangular2PerGroup",
                      .lrs = {0.5, 0.5},
                      .python = "S.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], "
                                "step_size_up=2, mode='triangular2', base_momentum=0.85, "
                                "max_momentum=0.95)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<CyclicLR>(
                                o, std::vector<double>{0.01, 0.02}, std::vector<double>{0.1, 0.3},
                                CyclicLROptions{.step_size_up = 2,
                                                .mode = "triangular2",
                                                .base_momentum = 0.85,
                                                .max_momentum = 0.95});
                          },
                      .steps = 14},
        // The rate the user sets is overwritten at the next step: CyclicLR is not chainable.
        SchedulerCase{.label = "CyclicLRExpRangeWithoutMomentum",
                      .lrs = {0.1},
                      .python = "S.CyclicLR(opt, base_lr=0.001, max_lr=0.01, step_size_up=4, "
                                "mode='exp_range', gamma=0.9, cycle_momentum=False)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<CyclicLR>(
                                o, 0.001, 0.01,
                                CyclicLROptions{.step_size_up = 4,
                                                .mode = "exp_range",
                                                .gamma = 0.9,
                                                .cycle_momentum = false});
                          },
                      .steps = 20,
                      .override_at = 5,
                      .override_lr = 0.5},
        // ConstantLR warm-up, then restarts; the restarts begin at their own period 0.
        SchedulerCase{
            .label = "SequentialLRConstantThenWarmRestarts",
            .lrs = {0.1, 0.03},
            .python = "S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=3), "
                      "S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)], milestones=[3])",
            .make =
                [](auto& o) {
                  return std::make_shared<SequentialLR>(
                      o,
                      std::vector<std::shared_ptr<LRScheduler>>{
                          std::make_shared<ConstantLR>(o, 0.1, 3),
                          std::make_shared<CosineAnnealingWarmRestarts>(o, 2, 2)},
                      std::vector<int64_t>{3});
                },
            .steps = 15,
            .resume_at = 6},
        // ---- ChainedScheduler ----
        // PyTorch's example: the factors of a warm-up and a decay multiply.
        SchedulerCase{.label = "ChainedSchedulerConstantAndExponential",
                      .lrs = {1.0, 0.5},
                      .python = "S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), "
                                "S.ExponentialLR(opt, gamma=0.9)])",
                      .make =
                          [](auto& o) {
                            return std::make_shared<ChainedScheduler>(
                                std::vector<std::shared_ptr<LRScheduler>>{
                                    std::make_shared<ConstantLR>(o, 0.1, 2),
                                    std::make_shared<ExponentialLR>(o, 0.9)});
                          },
                      .steps = 8,
                      .resume_at = 1},
        // A non-chainable scheduler first sets the rates the next one multiplies; a rate the
        // user sets is overwritten by it.
        SchedulerCase{
            .label = "ChainedSchedulerCyclicThenStep",
            .lrs = {0.5},
            .python = "S.ChainedScheduler([S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, "
                      "step_size_up=2), S.MultiStepLR(opt, milestones=[3, 7], gamma=0.5)])",
            .make =
                [](auto& o) {
                  return std::make_shared<ChainedScheduler>(
                      std::vector<std::shared_ptr<LRScheduler>>{
                          std::make_shared<CyclicLR>(o, 0.01, 0.1,
                                                     CyclicLROptions{.step_size_up = 2}),
                          std::make_shared<MultiStepLR>(o, std::vector<int64_t>{3, 7}, 0.5)});
                },
            .steps = 12,
            .override_at = 5,
            .override_lr = 0.3},
        // ---- ReduceLROnPlateau ----
        SchedulerCase{
            .label = "ReduceLROnPlateauMinRel",
            .lrs = {0.1, 0.05},
            .python = "S.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, "
                      "min_lr=[0.01, 0.02])",
            .make =
                [](auto& o) {
                  return std::make_shared<ReduceLROnPlateau>(
                      o, ReduceLROnPlateauOptions{
                             .factor = 0.5, .patience = 2, .cooldown = 1, .min_lr = {0.01, 0.02}});
                },
            .steps = 20,
            .metrics = {1.0, 0.9, 0.95,    0.9, 0.91, 0.8999, 0.92, 0.7, 0.7, 0.7,
                        0.7, 0.7, 0.69995, 0.7, 0.8,  0.6,    0.6,  0.6, 0.6, 0.6}},
        SchedulerCase{
            .label = "ReduceLROnPlateauMaxAbs",
            .lrs = {0.1},
            .python = "S.ReduceLROnPlateau(opt, mode='max', threshold=0.05, threshold_mode='abs', "
                      "patience=0, factor=0.3, min_lr=0.005, eps=0.002)",
            .make =
                [](auto& o) {
                  return std::make_shared<ReduceLROnPlateau>(
                      o, ReduceLROnPlateauOptions{.mode = "max",
                                                  .factor = 0.3,
                                                  .patience = 0,
                                                  .threshold = 0.05,
                                                  .threshold_mode = "abs",
                                                  .min_lr = {0.005},
                                                  .eps = 0.002});
                },
            .steps = 12,
            .metrics = {0.5, 0.6, 0.62, 0.7, 0.7, 0.76, 0.75, 0.9, 0.9, 0.9, 0.9, 0.9}},
        SchedulerCase{.label = "ReduceLROnPlateauMaxRelDefaults",
                      .lrs = {0.1, 1.0},
                      .python = "S.ReduceLROnPlateau(opt, mode='max', patience=1)",
                      .make =
                          [](auto& o) {
                            return std::make_shared<ReduceLROnPlateau>(
                                o, ReduceLROnPlateauOptions{.mode = "max", .patience = 1});
                          },
                      .steps = 10,
                      .metrics = {0.1, 0.2, 0.2, 0.20001, 0.3, 0.1, 0.1, 0.1, 0.1, 0.1}}),
    [](const ::testing::TestParamInfo<SchedulerCase>& info) { return info.param.label; });

// ---- settings that are ConfigErrors ----

template <typename Make>
std::string config_error_of(Make make) {
  try {
    make();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ConfigError";
  return "";
}

std::string checkpoint_error_of(LRScheduler& scheduler, const c10::impl::GenericDict& state) {
  try {
    scheduler.load_state_dict(state, "x.ckpt");
  } catch (const CheckpointError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected CheckpointError";
  return "";
}

TEST(MultiStepLRTest, UnsortedMilestonesAreAConfigError) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] {
              MultiStepLR(*sgd, {5, 2});
            }),
            "MultiStepLR(milestones=[5, 2]): milestones must be in increasing order (the "
            "periods at which the rate is multiplied by gamma)");
}

TEST(MultiStepLRTest, StateHoldsMilestonesAsACounter) {
  auto sgd = make_sgd({0.1});
  MultiStepLR scheduler(*sgd, {2, 5, 5}, 0.5);
  const auto state = scheduler.state_dict();
  const auto milestones = state.at("milestones").toGenericDict();
  EXPECT_EQ(milestones.size(), 2u);
  EXPECT_EQ(milestones.at(2).toInt(), 1);
  EXPECT_EQ(milestones.at(5).toInt(), 2);
  EXPECT_EQ(state.at("gamma").toDouble(), 0.5);
}

TEST(CosineAnnealingLRTest, TMaxBelowOneIsAConfigError) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { CosineAnnealingLR(*sgd, 0); }),
            "CosineAnnealingLR(T_max=0): T_max must be at least 1 (the number of periods from "
            "the base rate down to eta_min)");
}

TEST(CosineAnnealingLRTest, ASavedTMaxBelowOneIsACheckpointError) {
  auto sgd = make_sgd({0.1});
  CosineAnnealingLR scheduler(*sgd, 5);
  auto state = scheduler.state_dict();
  state.insert_or_assign("T_max", 0);
  try {
    scheduler.load_state_dict(state, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(), "x.ckpt: the state of scheduler CosineAnnealingLR has a T_max below 1");
  }
}

TEST(LinearLRTest, FactorsOutOfRangeAreConfigErrors) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { LinearLR(*sgd, 0.0); }),
            "LinearLR(start_factor=0, end_factor=1, total_iters=5): start_factor must be in "
            "(0, 1] (it multiplies the rate at period 0), got 0");
  EXPECT_EQ(config_error_of([&] { LinearLR(*sgd, 0.5, 1.5); }),
            "LinearLR(start_factor=0.5, end_factor=1.5, total_iters=5): end_factor must be in "
            "[0, 1], got 1.5");
  EXPECT_EQ(config_error_of([&] { LinearLR(*sgd, 0.5, 1.0, 0); }),
            "LinearLR(start_factor=0.5, end_factor=1, total_iters=0): total_iters must be at "
            "least 1 (the period at which the factor reaches end_factor), got 0");
  // Nothing moved.
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.1);
}

TEST(OneCycleLRTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1, 0.2});
  EXPECT_EQ(config_error_of([&] { OneCycleLR(*sgd, 0.1, 0); }),
            "OneCycleLR(total_steps=0): total_steps must be at least 1 (the number of step() "
            "calls in the cycle; PyTorch's epochs * steps_per_epoch)");
  EXPECT_EQ(config_error_of([&] { OneCycleLR(*sgd, 0.1, 10, {.pct_start = 1.5}); }),
            "OneCycleLR(pct_start=1.5): pct_start must be in [0, 1] (the fraction of the cycle "
            "spent raising the rate)");
  EXPECT_EQ(config_error_of([&] { OneCycleLR(*sgd, 0.1, 10, {.anneal_strategy = "cosine"}); }),
            "OneCycleLR(anneal_strategy=\"cosine\"): anneal_strategy must be \"cos\" or "
            "\"linear\"");
  EXPECT_EQ(config_error_of([&] {
              OneCycleLR(*sgd, {0.1, 0.2, 0.3}, 10);
            }),
            "OneCycleLR: max_lr has 3 values for an optimizer with 2 param groups; give one "
            "value for all groups or one per group");
  auto adagrad = make_optimizer("adagrad", {0.1});
  EXPECT_EQ(config_error_of([&] { OneCycleLR(*adagrad, 0.1, 10); }),
            "OneCycleLR(cycle_momentum=true): the optimizer has neither a momentum (SGD, "
            "RMSprop) nor betas (Adam, AdamW) to cycle; set cycle_momentum = false");
  OneCycleLR without_momentum(*adagrad, 0.1, 10, {.cycle_momentum = false});
  EXPECT_DOUBLE_EQ(without_momentum.get_last_lr()[0], 0.1 / 25);
}

TEST(OneCycleLRTest, SteppingPastTotalStepsIsAConfigErrorAndChangesNothing) {
  auto sgd = make_sgd({0.1});
  OneCycleLR scheduler(*sgd, 0.1, 4, {.cycle_momentum = false});
  for (int i = 0; i < 4; ++i) scheduler.step();  // PyTorch allows total_steps steps
  const std::vector<double> rates = scheduler.get_last_lr();
  EXPECT_EQ(config_error_of([&] { scheduler.step(); }),
            "OneCycleLR(total_steps=4): step() was called 5 times, past the end of the cycle (at "
            "most total_steps times); make total_steps the number of times the scheduler steps "
            "in the whole fit (with interval \"step\": the optimizer steps of all epochs)");
  EXPECT_EQ(scheduler.last_epoch(), 4);
  EXPECT_EQ(scheduler.get_last_lr(), rates);
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), rates[0]);
}

TEST(OneCycleLRTest, StateHasPyTorchsPhases) {
  auto adam = make_optimizer("adam", {0.001});
  OneCycleLR scheduler(*adam, 0.01, 10, {.pct_start = 0.2});
  const auto state = scheduler.state_dict();
  EXPECT_EQ(state.at("total_steps").toInt(), 10);
  EXPECT_EQ(state.at("_anneal_func_type").toStringRef(), "cos");
  EXPECT_TRUE(state.at("cycle_momentum").toBool());
  EXPECT_TRUE(state.at("use_beta1").toBool());
  const auto phases = state.at("_schedule_phases").toList();
  ASSERT_EQ(phases.size(), 2u);
  const auto rise = phases.get(0).toGenericDict();
  EXPECT_EQ(rise.at("end_step").toDouble(), 0.2 * 10 - 1);
  EXPECT_EQ(rise.at("start_lr").toStringRef(), "initial_lr");
  EXPECT_EQ(rise.at("end_lr").toStringRef(), "max_lr");
  EXPECT_EQ(rise.at("start_momentum").toStringRef(), "max_momentum");
  EXPECT_EQ(rise.at("end_momentum").toStringRef(), "base_momentum");
  const auto fall = phases.get(1).toGenericDict();
  EXPECT_EQ(fall.at("end_step").toDouble(), 9.0);
  EXPECT_EQ(fall.at("end_lr").toStringRef(), "min_lr");
  EXPECT_EQ(state.at("base_lrs").toList().get(0).toDouble(), 0.01 / 25);

  // A phase naming a bound PyTorch does not have is a CheckpointError.
  auto broken = state.copy();
  auto broken_phases = phases.copy();
  auto broken_rise = rise.copy();
  broken_rise.insert_or_assign("end_lr", "peak_lr");
  broken_phases.set(0, broken_rise);
  broken.insert_or_assign("_schedule_phases", broken_phases);
  try {
    scheduler.check_state_dict(broken, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "x.ckpt: the state of scheduler OneCycleLR has \"peak_lr\" in \"end_lr\"; "
                 "expected one of \"initial_lr\", \"max_lr\", \"min_lr\", \"max_momentum\", "
                 "\"base_momentum\"");
  }
}

TEST(ReduceLROnPlateauTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1, 0.2});
  EXPECT_EQ(config_error_of([&] { ReduceLROnPlateau(*sgd, {.factor = 1.0}); }),
            "ReduceLROnPlateau(factor=1): factor must be in [0, 1) (the reduced rate is rate * "
            "factor)");
  EXPECT_EQ(config_error_of([&] { ReduceLROnPlateau(*sgd, {.mode = "mean"}); }),
            "ReduceLROnPlateau(mode=\"mean\"): mode must be \"min\" or \"max\"");
  EXPECT_EQ(config_error_of([&] { ReduceLROnPlateau(*sgd, {.threshold_mode = "relative"}); }),
            "ReduceLROnPlateau(threshold_mode=\"relative\"): threshold_mode must be \"rel\" or "
            "\"abs\"");
  EXPECT_EQ(config_error_of([&] { ReduceLROnPlateau(*sgd, {.patience = -1}); }),
            "ReduceLROnPlateau(patience=-1): patience must be at least 0 (the periods without "
            "improvement tolerated before the rate is reduced)");
  EXPECT_EQ(config_error_of([&] { ReduceLROnPlateau(*sgd, {.cooldown = -2}); }),
            "ReduceLROnPlateau(cooldown=-2): cooldown must be at least 0 (the periods to wait "
            "after a reduction)");
  EXPECT_EQ(config_error_of([&] {
              ReduceLROnPlateau(*sgd, {.min_lr = {0.1, 0.2, 0.3}});
            }),
            "ReduceLROnPlateau(min_lr with 3 values): the optimizer has 2 param groups; give one "
            "min_lr for all groups or one per group");
}

// A param group added after the scheduler was made (as a finetuning callback does): chainable
// schedulers adjust it too, closed forms only the groups they started with (PyTorch's zip),
// against PyTorch's rates at every step.
TEST(LRSchedulersTest, AParamGroupAddedLaterFollowsPyTorch) {
  struct Case {
    std::string python;
    Factory make;
  };
  const std::vector<Case> cases{
      {"S.StepLR(opt, step_size=2, gamma=0.5)",
       [](auto& o) { return std::make_shared<StepLR>(o, 2, 0.5); }},
      {"S.ExponentialLR(opt, gamma=0.9)",
       [](auto& o) { return std::make_shared<ExponentialLR>(o, 0.9); }},
      // T_max=3: the steps at 4 (and 10) take the closed branch that zips with base_lrs.
      {"S.CosineAnnealingLR(opt, T_max=3, eta_min=0.001)",
       [](auto& o) { return std::make_shared<CosineAnnealingLR>(o, 3, 0.001); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.python);
    const auto expected = testing::number_rows(testing::run_python(fmt::format(
        "import torch\n"
        "from torch.optim import lr_scheduler as S\n"
        "a, b = torch.nn.Parameter(torch.zeros(1)), torch.nn.Parameter(torch.zeros(1))\n"
        "opt = torch.optim.SGD([a], lr=0.1)\n"
        "sched = {}\n"
        "for i in range(1, 11):\n"
        "    if i == 3: opt.add_param_group({{'params': [b], 'lr': 0.05}})\n"
        "    opt.step()\n"
        "    sched.step()\n"
        "    print(*(repr(g['lr']) for g in opt.param_groups))\n",
        c.python)));
    ASSERT_EQ(expected.size(), 10u);
    auto sgd = make_sgd({0.1});
    auto scheduler = c.make(*sgd);
    for (size_t i = 1; i <= 10; ++i) {
      if (i == 3) {
        sgd->add_param_group(
            torch::optim::OptimizerParamGroup({torch::zeros({1}).requires_grad_()},
                                              std::make_unique<torch::optim::SGDOptions>(0.05)));
      }
      scheduler->step();
      std::vector<double> row;
      for (auto& group : sgd->param_groups()) row.push_back(group.options().get_lr());
      expect_rows_near(row, expected[i - 1], fmt::format("step {}", i));
      EXPECT_EQ(scheduler->get_last_lr(), row);
    }
    // Saved with one base rate and two last rates; loads into a scheduler on two groups.
    auto resumed = c.make(*sgd);
    EXPECT_NO_THROW(resumed->load_state_dict(scheduler->state_dict(), "x.ckpt"));
    EXPECT_EQ(resumed->get_last_lr(), scheduler->get_last_lr());
  }
}

TEST(ReduceLROnPlateauTest, AParamGroupAddedLaterGetsTheSharedMinLr) {
  auto sgd = make_sgd({0.1});
  ReduceLROnPlateau scheduler(*sgd, {.factor = 0.5, .patience = 0, .min_lr = {0.03}});
  scheduler.step(1.0);
  sgd->add_param_group(torch::optim::OptimizerParamGroup(
      {torch::zeros({1}).requires_grad_()}, std::make_unique<torch::optim::SGDOptions>(0.04)));
  scheduler.step(2.0);  // reduced: 0.05 and max(0.02, 0.03)
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.05, 0.03}));
  // Saved before the group was added (one min_lr) and loaded where there are two groups.
  auto one_group = make_sgd({0.1});
  ReduceLROnPlateau before(*one_group, {.min_lr = {0.03}});
  ReduceLROnPlateau target(*sgd);
  EXPECT_NO_THROW(target.load_state_dict(before.state_dict(), "x.ckpt"));

  auto two = make_sgd({0.1, 0.2});
  ReduceLROnPlateau different(*two, {.factor = 0.5, .patience = 0, .min_lr = {0.01, 0.02}});
  different.step(1.0);
  two->add_param_group(torch::optim::OptimizerParamGroup(
      {torch::zeros({1}).requires_grad_()}, std::make_unique<torch::optim::SGDOptions>(0.3)));
  EXPECT_EQ(config_error_of([&] { different.step(2.0); }),
            "ReduceLROnPlateau: the optimizer has 3 param groups but min_lr has 2 different "
            "values (a param group was added after the scheduler was made); give one min_lr for "
            "all groups");
  EXPECT_EQ(different.last_epoch(), 1);
  EXPECT_EQ(different.state_dict().at("num_bad_epochs").toInt(), 0);
}

TEST(ReduceLROnPlateauTest, NeedsTheMetric) {
  auto sgd = make_sgd({0.1});
  ReduceLROnPlateau scheduler(*sgd);
  EXPECT_TRUE(scheduler.needs_metric());
  EXPECT_EQ(config_error_of([&] { scheduler.step(); }),
            "ReduceLROnPlateau.step() needs the value of the monitored metric and got none; set "
            "`monitor` in the scheduler config to a metric you log, or call step(metric)");
  EXPECT_EQ(scheduler.last_epoch(), 0);
}

TEST(ReduceLROnPlateauTest, StateHasPyTorchsCounters) {
  auto sgd = make_sgd({0.1});
  ReduceLROnPlateau scheduler(*sgd, {.patience = 1, .cooldown = 2});
  scheduler.step(1.0);
  scheduler.step(2.0);
  scheduler.step(3.0);  // the second bad period: reduced, cooldown starts
  EXPECT_DOUBLE_EQ(scheduler.get_last_lr()[0], 0.01);
  const auto state = scheduler.state_dict();
  EXPECT_EQ(state.at("best").toDouble(), 1.0);
  EXPECT_EQ(state.at("num_bad_epochs").toInt(), 0);
  EXPECT_EQ(state.at("cooldown_counter").toInt(), 2);
  EXPECT_EQ(state.at("mode").toStringRef(), "min");
  EXPECT_EQ(state.at("threshold_mode").toStringRef(), "rel");
  EXPECT_EQ(state.at("mode_worse").toDouble(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(state.at("last_epoch").toInt(), 3);
  for (const char* key : {"factor", "patience", "threshold", "cooldown", "eps", "min_lrs"}) {
    EXPECT_TRUE(state.contains(key)) << key;
  }
}

TEST(ReduceLROnPlateauTest, ASavedModeItDoesNotKnowIsACheckpointErrorAndChangesNothing) {
  auto sgd = make_sgd({0.1});
  ReduceLROnPlateau scheduler(*sgd);
  auto state = scheduler.state_dict();
  state.insert_or_assign("mode", "mean");
  state.insert_or_assign("last_epoch", 7);
  ReduceLROnPlateau target(*sgd);
  try {
    target.load_state_dict(state, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "x.ckpt: the state of scheduler ReduceLROnPlateau has \"mean\" in \"mode\"; "
                 "expected one of \"min\", \"max\"");
  }
  EXPECT_EQ(target.last_epoch(), 0);
  state.insert_or_assign("mode", "min");
  state.insert_or_assign("factor", 2.0);
  try {
    target.check_state_dict(state, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "x.ckpt: the state of scheduler ReduceLROnPlateau has factor=2, which "
                 "ReduceLROnPlateau rejects: factor must be in [0, 1) (the reduced rate is rate "
                 "* factor)");
  }
}

TEST(SequentialLRTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1});
  auto other = make_sgd({0.1});
  auto a = std::make_shared<ExponentialLR>(*sgd, 0.9);
  auto b = std::make_shared<ExponentialLR>(*sgd, 0.8);
  using List = std::vector<std::shared_ptr<LRScheduler>>;
  EXPECT_EQ(config_error_of([&] { SequentialLR(*sgd, List{}, {}); }),
            "SequentialLR: schedulers is empty; give at least one scheduler");
  EXPECT_EQ(config_error_of([&] {
              SequentialLR(*sgd, List{a, b}, {2, 4});
            }),
            "SequentialLR(milestones=[2, 4]): 2 schedulers need 1 milestones (the periods at "
            "which each scheduler after the first takes over), got 2");
  EXPECT_EQ(config_error_of([&] {
              SequentialLR(*sgd, List{a, b, a}, {4, 2});
            }),
            "SequentialLR(milestones=[4, 2]): milestones must be in increasing order (the "
            "periods at which each scheduler after the first takes over)");
  auto elsewhere = std::make_shared<ExponentialLR>(*other, 0.9);
  EXPECT_EQ(config_error_of([&] {
              SequentialLR(*sgd, List{a, elsewhere}, {2});
            }),
            "SequentialLR: schedulers[1] (ExponentialLR) drives another optimizer; build every "
            "scheduler on the optimizer given to SequentialLR");
  auto plateau = std::make_shared<ReduceLROnPlateau>(*sgd);
  EXPECT_EQ(config_error_of([&] {
              SequentialLR(*sgd, List{a, plateau}, {2});
            }),
            "SequentialLR: schedulers[1] (ReduceLROnPlateau) needs a monitored metric, which "
            "SequentialLR does not pass on (neither does PyTorch's); use it as a scheduler of "
            "its own");
}

TEST(SequentialLRTest, StateHoldsTheSchedulersStates) {
  auto sgd = make_sgd({0.1});
  auto warmup = std::make_shared<LinearLR>(*sgd, 0.5, 1.0, 2);
  auto decay = std::make_shared<ExponentialLR>(*sgd, 0.5);
  SequentialLR scheduler(*sgd, {warmup, decay}, {2});
  for (int i = 0; i < 3; ++i) scheduler.step();
  const auto state = scheduler.state_dict();
  const auto milestones = state.at("_milestones").toList();
  ASSERT_EQ(milestones.size(), 1u);
  EXPECT_EQ(milestones.get(0).toInt(), 2);
  const auto children = state.at("_schedulers").toList();
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children.get(0).toGenericDict().at("total_iters").toInt(), 2);
  EXPECT_EQ(children.get(1).toGenericDict().at("last_epoch").toInt(), 1);

  // A child's state that is not the child's: the error names it, and nothing changes.
  auto broken = state.copy();
  auto broken_children = children.copy();
  auto decay_state = broken_children.get(1).toGenericDict().copy();
  (void)decay_state.erase("gamma");
  broken_children.set(1, decay_state);
  broken.insert_or_assign("_schedulers", broken_children);
  auto sgd2 = make_sgd({0.1});
  SequentialLR target(
      *sgd2,
      {std::make_shared<LinearLR>(*sgd2, 0.5, 1.0, 2), std::make_shared<ExponentialLR>(*sgd2, 0.5)},
      {2});
  try {
    target.load_state_dict(broken, "x.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "x.ckpt: the state of scheduler ExponentialLR has no \"gamma\"; was it saved "
                 "from another scheduler?");
  }
  EXPECT_EQ(target.last_epoch(), 0);
  EXPECT_EQ(target.schedulers()[0]->last_epoch(), 0);
}

TEST(SWALRTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1, 0.2});
  EXPECT_EQ(config_error_of([&] { SWALR(*sgd, 0.05, 10, "step"); }),
            "SWALR(swa_lrs=[0.05, 0.05], anneal_epochs=10, anneal_strategy='step'): "
            "anneal_strategy must be one of 'cos' or 'linear', got 'step'");
  EXPECT_EQ(config_error_of([&] { SWALR(*sgd, 0.05, -1); }),
            "SWALR(swa_lrs=[0.05, 0.05], anneal_epochs=-1, anneal_strategy='cos'): "
            "anneal_epochs must be equal or greater than 0, got -1");
  EXPECT_EQ(config_error_of([&] {
              SWALR(*sgd, std::vector<double>{0.01, 0.02, 0.03});
            }),
            "SWALR(swa_lrs=[0.01, 0.02, 0.03], anneal_epochs=10, anneal_strategy='cos'): swa_lr "
            "must have the same length as the optimizer's param groups: swa_lr has 3, the "
            "optimizer has 2 param groups");
}

TEST(SWALRTest, StateHoldsTheSwaRatesAndStrategyAndChecksThem) {
  auto sgd = make_sgd({0.1, 0.2});
  SWALR scheduler(*sgd, std::vector<double>{0.01, 0.02}, 3, "linear");
  scheduler.step();
  const auto state = scheduler.state_dict();
  EXPECT_EQ(state.at("anneal_epochs").toInt(), 3);
  EXPECT_EQ(state.at("anneal_strategy").toStringRef(), "linear");
  const auto swa_lrs = state.at("swa_lrs").toList();
  ASSERT_EQ(swa_lrs.size(), 2u);
  EXPECT_EQ(swa_lrs.get(1).toDouble(), 0.02);
  EXPECT_EQ(state.at("_step_count").toInt(), 2);

  // A fresh cos scheduler takes the saved strategy and rates: the next step is the linear one.
  auto fresh_sgd = make_sgd({0.1, 0.2});
  SWALR fresh(*fresh_sgd, 0.5);
  for (size_t g = 0; g < 2; ++g) {
    fresh_sgd->param_groups()[g].options().set_lr(sgd->param_groups()[g].options().get_lr());
  }
  fresh.load_state_dict(state, "swa.ckpt");
  EXPECT_EQ(fresh.swa_lrs(), (std::vector<double>{0.01, 0.02}));
  scheduler.step();
  fresh.step();
  EXPECT_EQ(fresh.get_last_lr(), scheduler.get_last_lr());

  auto broken = state.copy();
  broken.insert_or_assign("anneal_strategy", "step");
  try {
    fresh.load_state_dict(broken, "swa.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(),
                 "swa.ckpt: the state of scheduler SWALR has \"step\" in \"anneal_strategy\"; "
                 "expected one of \"cos\", \"linear\"");
  }
  broken = state.copy();
  broken.insert_or_assign("swa_lrs", c10::List<double>({0.01}));
  EXPECT_THROW(fresh.load_state_dict(broken, "swa.ckpt"), CheckpointError);
  EXPECT_EQ(fresh.swa_lrs(), (std::vector<double>{0.01, 0.02}));
}

TEST(ConstantLRTest, BadSettingsAreConfigErrorsAndSavedOnesCheckpointErrors) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { ConstantLR(*sgd, 0.0); }),
            "ConstantLR(factor=0, total_iters=5): factor must be in (0, 1] (it multiplies the "
            "rate until total_iters), got 0");
  EXPECT_EQ(config_error_of([&] { ConstantLR(*sgd, 0.5, 0); }),
            "ConstantLR(factor=0.5, total_iters=0): total_iters must be at least 1 (the period "
            "at which the rate returns to its base), got 0");
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.1);

  ConstantLR scheduler(*sgd, 0.5, 2);
  auto state = scheduler.state_dict();
  state.insert_or_assign("factor", 1.5);
  EXPECT_EQ(checkpoint_error_of(scheduler, state),
            "x.ckpt: the state of scheduler ConstantLR has settings ConstantLR rejects: "
            "factor must be in (0, 1] (it multiplies the rate until total_iters), got 1.5");
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>{0.05});
}

TEST(PolynomialLRTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { PolynomialLR(*sgd, 0); }),
            "PolynomialLR(total_iters=0, power=1): total_iters must be at least 1 (the number of "
            "periods until the rate reaches zero), got 0");
  EXPECT_EQ(config_error_of([&] { PolynomialLR(*sgd, 4, -1.0); }),
            "PolynomialLR(total_iters=4, power=-1): power must be at least 0, got -1");
}

TEST(CosineAnnealingWarmRestartsTest, BadSettingsAreConfigErrorsAndStateHasTheCycle) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { CosineAnnealingWarmRestarts(*sgd, 0); }),
            "CosineAnnealingWarmRestarts(T_0=0, T_mult=1): T_0 must be at least 1 (the length "
            "of the first cycle), got 0");
  EXPECT_EQ(config_error_of([&] { CosineAnnealingWarmRestarts(*sgd, 3, 0); }),
            "CosineAnnealingWarmRestarts(T_0=3, T_mult=0): T_mult must be at least 1 (how much "
            "longer each cycle is), got 0");

  // Period 11 of cycles 2, 6, 18: the third cycle, 3 periods in (PyTorch's T_i and T_cur).
  CosineAnnealingWarmRestarts scheduler(*sgd, 2, 3);
  for (int i = 0; i < 11; ++i) scheduler.step();
  auto state = scheduler.state_dict();
  EXPECT_EQ(state.at("T_i").toInt(), 18);
  EXPECT_EQ(state.at("T_cur").toInt(), 3);
  state.insert_or_assign("T_mult", 0);
  EXPECT_EQ(checkpoint_error_of(scheduler, state),
            "x.ckpt: the state of scheduler CosineAnnealingWarmRestarts has settings "
            "CosineAnnealingWarmRestarts rejects: T_mult must be at least 1 (how much longer "
            "each cycle is), got 0");
  EXPECT_EQ(scheduler.last_epoch(), 11);
}

TEST(LambdaLRTest, FunctionCountsAndSavedCallableObjectsAreErrors) {
  auto sgd = make_sgd({0.1, 0.2, 0.3});
  const LrLambda half = [](int64_t) { return 0.5; };
  EXPECT_EQ(config_error_of([&] {
              LambdaLR(*sgd, std::vector<LrLambda>{half, half});
            }),
            "LambdaLR: expected 3 lr_lambdas (one per param group, or one for all of them), got 2");
  EXPECT_EQ(config_error_of([&] {
              MultiplicativeLR(*sgd, std::vector<LrLambda>{half, {}, half});
            }),
            "MultiplicativeLR: lr_lambda 1 is an empty function");

  LambdaLR scheduler(*sgd, half);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.05, 0.1, 0.15}));
  auto state = scheduler.state_dict();
  // PyTorch's form: one None per function.
  const auto saved = state.at("lr_lambdas").toList();
  ASSERT_EQ(saved.size(), 3u);
  for (const c10::IValue& entry : saved) EXPECT_TRUE(entry.isNone());

  // A callable object's attributes, as Python saves them, cannot come back into a C++ function.
  c10::impl::GenericDict attributes(c10::StringType::get(), c10::AnyType::get());
  attributes.insert("factor", 0.5);
  c10::impl::GenericList with_object(c10::AnyType::get());
  for (int i = 0; i < 3; ++i)
    with_object.push_back(i == 1 ? c10::IValue(attributes) : c10::IValue());
  state.insert_or_assign("lr_lambdas", with_object);
  EXPECT_EQ(checkpoint_error_of(scheduler, state),
            "x.ckpt: the state of scheduler LambdaLR holds a callable object's attributes in "
            "\"lr_lambdas\", which a C++ function cannot take");
  c10::impl::GenericList too_few(c10::AnyType::get());
  too_few.push_back(c10::IValue());
  state.insert_or_assign("lr_lambdas", too_few);
  EXPECT_EQ(checkpoint_error_of(scheduler, state),
            "x.ckpt: the state of scheduler LambdaLR has 1 entries in \"lr_lambdas\" for 3 "
            "functions");
}

TEST(CyclicLRTest, BadSettingsAreConfigErrors) {
  auto sgd = make_sgd({0.1, 0.2});
  EXPECT_EQ(config_error_of([&] { CyclicLR(*sgd, 0.01, 0.1, {.step_size_up = 0}); }),
            "CyclicLR(step_size_up=0, step_size_down=0): step_size_up must be at least 1 and "
            "step_size_down at least 0 (the periods in each half of a cycle)");
  EXPECT_EQ(config_error_of([&] { CyclicLR(*sgd, 0.01, 0.1, {.mode = "triangle"}); }),
            "CyclicLR(mode=\"triangle\"): mode must be one of triangular, triangular2, exp_range "
            "(or give a scale_fn)");
  EXPECT_EQ(config_error_of([&] { CyclicLR(*sgd, 0.01, 0.1, {.scale_mode = "epoch"}); }),
            "CyclicLR(scale_mode=\"epoch\"): scale_mode must be one of cycle, iterations");
  EXPECT_EQ(config_error_of([&] {
              CyclicLR(*sgd, std::vector<double>{0.01, 0.02, 0.03}, std::vector<double>{0.1});
            }),
            "CyclicLR: expected 2 values for base_lr (one per param group), got 3");
  auto adagrad = make_optimizer("adagrad", {0.1});
  EXPECT_EQ(config_error_of([&] { CyclicLR(*adagrad, 0.01, 0.1); }),
            "CyclicLR(cycle_momentum=true): the optimizer has neither a momentum (SGD, RMSprop) "
            "nor betas (Adam, AdamW) to cycle; set cycle_momentum = false");
  // Nothing moved.
  EXPECT_EQ(sgd->param_groups()[1].options().get_lr(), 0.2);
  CyclicLR without_momentum(*adagrad, 0.01, 0.1, {.cycle_momentum = false});
  EXPECT_EQ(without_momentum.get_last_lr(), std::vector<double>{0.01});
}

// Adam's first beta is cycled as torch >= 2.2 does (1.13 rejects Adam): the same curve as SGD's
// momentum, and the state says so as 2.2's does.
TEST(CyclicLRTest, CyclesAdamsFirstBetaLikeSgdsMomentum) {
  auto sgd = make_sgd({0.1});
  auto adam = make_optimizer("adam", {0.1});
  CyclicLR on_sgd(*sgd, 0.01, 0.1, {.step_size_up = 3});
  CyclicLR on_adam(*adam, 0.01, 0.1, {.step_size_up = 3});
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(momentum_of(adam->param_groups()[0]), momentum_of(sgd->param_groups()[0]))
        << "period " << i;
    EXPECT_EQ(on_adam.get_last_lr(), on_sgd.get_last_lr());
    on_sgd.step();
    on_adam.step();
  }
  EXPECT_NEAR(momentum_of(adam->param_groups()[0]), 0.9 - 0.1 * 2 / 3, 1e-12);
  EXPECT_TRUE(on_adam.state_dict().at("use_beta1").toBool());
  EXPECT_FALSE(on_sgd.state_dict().at("use_beta1").toBool());
}

// A custom scale_fn (here on the period) against PyTorch's; not saved, as in PyTorch.
TEST(CyclicLRTest, CustomScaleFnMatchesTorch) {
  SchedulerCase c{.label = "CyclicLRCustomScaleFn",
                  .lrs = {0.1},
                  .python =
                      "S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, "
                      "scale_fn=lambda x: 0.95 ** x, scale_mode='iterations', "
                      "cycle_momentum=False)",
                  .steps = 12};
  const auto expected = testing::number_rows(testing::run_python(python_script(c, 0)));
  auto optimizer = make_sgd(c.lrs);
  CyclicLR scheduler(*optimizer, 0.01, 0.1,
                     {.step_size_up = 2,
                      .scale_fn = [](double x) { return std::pow(0.95, x); },
                      .scale_mode = "iterations",
                      .cycle_momentum = false});
  std::vector<std::vector<double>> actual{row_of(scheduler, *optimizer)};
  step_to(c, scheduler, *optimizer, c.steps, &actual);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    expect_rows_near(actual[i], expected[i], fmt::format("period {}", i));
  }
  EXPECT_TRUE(scheduler.state_dict().at("_scale_fn_custom").isNone());
}

TEST(ChainedSchedulerTest, BadSettingsAreConfigErrors) {
  using List = std::vector<std::shared_ptr<LRScheduler>>;
  auto sgd = make_sgd({0.1});
  auto other = make_sgd({0.1});
  EXPECT_EQ(config_error_of([&] { ChainedScheduler(List{}); }),
            "ChainedScheduler: schedulers is empty; give at least one scheduler");
  auto a = std::make_shared<ExponentialLR>(*sgd, 0.9);
  EXPECT_EQ(config_error_of([&] {
              ChainedScheduler(List{a, nullptr});
            }),
            "ChainedScheduler: schedulers[1] is null");
  auto elsewhere = std::make_shared<ExponentialLR>(*other, 0.9);
  EXPECT_EQ(config_error_of([&] {
              ChainedScheduler(List{a, elsewhere});
            }),
            "ChainedScheduler: schedulers[1] (ExponentialLR) drives another optimizer; chain "
            "schedulers of one optimizer");
  auto plateau = std::make_shared<ReduceLROnPlateau>(*sgd);
  EXPECT_EQ(config_error_of([&] { ChainedScheduler(List{plateau}); }),
            "ChainedScheduler: schedulers[0] (ReduceLROnPlateau) needs a monitored metric, which "
            "ChainedScheduler does not pass on (neither does PyTorch's); use it as a scheduler "
            "of its own");
}

// OneCycleLR refuses a step past its cycle after ExponentialLR has stepped and CyclicLR has set
// the momentum: all of it is put back.
TEST(ChainedSchedulerTest, AFailedStepChangesNothing) {
  using List = std::vector<std::shared_ptr<LRScheduler>>;
  auto sgd = make_sgd({0.1});
  auto exponential = std::make_shared<ExponentialLR>(*sgd, 0.9);
  auto cyclic = std::make_shared<CyclicLR>(*sgd, 0.01, 0.1, CyclicLROptions{.step_size_up = 3});
  auto one_cycle =
      std::make_shared<OneCycleLR>(*sgd, 0.1, 2, OneCycleLROptions{.cycle_momentum = false});
  ChainedScheduler chain(List{exponential, cyclic, one_cycle});
  chain.step();
  chain.step();
  const auto state = chain.state_dict();
  const double lr = sgd->param_groups()[0].options().get_lr();
  const double momentum = momentum_of(sgd->param_groups()[0]);
  EXPECT_NE(config_error_of([&] { chain.step(); }), "");
  EXPECT_EQ(chain.last_epoch(), 2);
  EXPECT_EQ(exponential->last_epoch(), 2);
  EXPECT_EQ(cyclic->last_epoch(), 2);
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), lr);
  EXPECT_EQ(momentum_of(sgd->param_groups()[0]), momentum);
  // Printed with every digit: the same values, and types, as before the failed step.
  auto printed = [](const c10::impl::GenericDict& dict) {
    std::ostringstream out;
    out << c10::IValue(dict);
    return out.str();
  };
  EXPECT_EQ(printed(chain.state_dict()), printed(state));
}

TEST(ChainedSchedulerTest, StateHoldsTheSchedulersStatesAndChecksThem) {
  using List = std::vector<std::shared_ptr<LRScheduler>>;
  auto sgd = make_sgd({0.1});
  ChainedScheduler chain(
      List{std::make_shared<ConstantLR>(*sgd, 0.5, 3), std::make_shared<ExponentialLR>(*sgd, 0.9)});
  chain.step();
  auto state = chain.state_dict();
  const auto children = state.at("_schedulers").toList();
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children.get(0).toGenericDict().at("factor").toDouble(), 0.5);
  EXPECT_EQ(children.get(1).toGenericDict().at("gamma").toDouble(), 0.9);

  ChainedScheduler shorter(List{std::make_shared<ExponentialLR>(*sgd, 0.9)});
  EXPECT_EQ(checkpoint_error_of(shorter, state),
            "x.ckpt: the state of scheduler ChainedScheduler holds 2 schedulers, not 1");
  auto bad_child = children.get(0).toGenericDict().copy();
  bad_child.insert_or_assign("factor", 0.0);
  auto bad_children = children.copy();
  bad_children.set(0, bad_child);
  state.insert_or_assign("_schedulers", bad_children);
  EXPECT_EQ(checkpoint_error_of(chain, state),
            "x.ckpt: the state of scheduler ConstantLR has settings ConstantLR rejects: factor "
            "must be in (0, 1] (it multiplies the rate until total_iters), got 0");
  EXPECT_EQ(chain.last_epoch(), 1);
}

TEST(LRSchedulersTest, NamesAndMetricNeeds) {
  auto sgd = make_sgd({0.1});
  EXPECT_EQ(MultiStepLR(*sgd, {1}).name(), "MultiStepLR");
  EXPECT_EQ(ExponentialLR(*sgd, 0.9).name(), "ExponentialLR");
  EXPECT_EQ(CosineAnnealingLR(*sgd, 3).name(), "CosineAnnealingLR");
  EXPECT_EQ(LinearLR(*sgd).name(), "LinearLR");
  EXPECT_EQ(OneCycleLR(*sgd, 0.1, 3).name(), "OneCycleLR");
  EXPECT_EQ(ReduceLROnPlateau(*sgd).name(), "ReduceLROnPlateau");
  EXPECT_EQ(SWALR(*sgd, 0.01).name(), "SWALR");
  EXPECT_EQ(ConstantLR(*sgd).name(), "ConstantLR");
  EXPECT_EQ(PolynomialLR(*sgd).name(), "PolynomialLR");
  EXPECT_EQ(CosineAnnealingWarmRestarts(*sgd, 2).name(), "CosineAnnealingWarmRestarts");
  EXPECT_EQ(LambdaLR(*sgd, [](int64_t) { return 1.0; }).name(), "LambdaLR");
  EXPECT_EQ(MultiplicativeLR(*sgd, [](int64_t) { return 1.0; }).name(), "MultiplicativeLR");
  EXPECT_EQ(CyclicLR(*sgd, 0.01, 0.1).name(), "CyclicLR");
  EXPECT_EQ(ChainedScheduler({std::make_shared<ExponentialLR>(*sgd, 0.9)}).name(),
            "ChainedScheduler");
  EXPECT_FALSE(OneCycleLR(*sgd, 0.1, 3).needs_metric());
  EXPECT_TRUE(ReduceLROnPlateau(*sgd).needs_metric());
}

}  // namespace
}  // namespace fulgur
