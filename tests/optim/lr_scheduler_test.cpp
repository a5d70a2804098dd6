#include "fulgur/optim/lr_scheduler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

// A scheduler that monitors a metric: each rate becomes base * metric.
class MetricScaled : public LRScheduler {
 public:
  using LRScheduler::LRScheduler;
  std::string name() const override { return "MetricScaled"; }
  bool needs_metric() const override { return true; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override {
    std::vector<double> lrs = base_lrs_;
    for (auto& lr : lrs) lr *= *metric;
    return lrs;
  }
};

// Returns one rate whatever the number of groups.
class OneRate : public LRScheduler {
 public:
  using LRScheduler::LRScheduler;
  std::string name() const override { return "OneRate"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double>) override { return {0.5}; }
};

class ThreeRates : public LRScheduler {
 public:
  using LRScheduler::LRScheduler;
  std::string name() const override { return "ThreeRates"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double>) override { return {0.5, 0.5, 0.5}; }
};

std::shared_ptr<torch::optim::SGD> make_sgd(const std::vector<double>& lrs) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (double lr : lrs) {
    groups.emplace_back(std::vector<torch::Tensor>{torch::zeros({1}).requires_grad_()},
                        std::make_unique<torch::optim::SGDOptions>(lr));
  }
  return std::make_shared<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(lrs[0]));
}

TEST(LRSchedulerTest, MissingMetricIsAConfigErrorNamingTheScheduler) {
  auto sgd = make_sgd({0.1});
  MetricScaled scheduler(*sgd);
  try {
    scheduler.step();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "MetricScaled.step() needs the value of the monitored metric and got none; set "
                 "`monitor` in the scheduler config to a metric you log, or call step(metric)");
  }
  // Nothing moved.
  EXPECT_EQ(scheduler.last_epoch(), 0);
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>{0.1});
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.1);
}

TEST(LRSchedulerTest, MetricReachesComputeLrsAndTheGroups) {
  auto sgd = make_sgd({0.1, 0.4});
  MetricScaled scheduler(*sgd);
  scheduler.step(0.5);
  EXPECT_EQ(scheduler.last_epoch(), 1);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.05, 0.2}));
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.05);
  EXPECT_EQ(sgd->param_groups()[1].options().get_lr(), 0.2);
  scheduler.step(0.25);  // from the base rates, as compute_lrs says
  EXPECT_EQ(scheduler.last_epoch(), 2);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.025, 0.1}));
}

TEST(LRSchedulerTest, FewerRatesThanGroupsSetTheFirstGroupsAsPyTorchsZip) {
  auto sgd = make_sgd({0.1, 0.4});
  OneRate scheduler(*sgd);
  scheduler.step();
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.5);
  EXPECT_EQ(sgd->param_groups()[1].options().get_lr(), 0.4);
  EXPECT_EQ(scheduler.get_last_lr(), (std::vector<double>{0.5, 0.4}));
}

TEST(LRSchedulerTest, MoreRatesThanGroupsIsAConfigError) {
  auto sgd = make_sgd({0.1});
  ThreeRates scheduler(*sgd);
  try {
    scheduler.step();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "ThreeRates computed 3 learning rates for an optimizer with 1 param groups; "
                 "param groups must not be removed after the scheduler is created");
  }
  EXPECT_EQ(scheduler.last_epoch(), 0);
  EXPECT_EQ(sgd->param_groups()[0].options().get_lr(), 0.1);
}

}  // namespace
}  // namespace fulgur
