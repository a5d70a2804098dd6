#include "fulgur/optim/optimizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

struct TwoGroups {
  torch::Tensor a = torch::tensor({1.0, 2.0}, torch::kDouble).requires_grad_();
  torch::Tensor b = torch::tensor({3.0}, torch::kDouble).requires_grad_();
  std::shared_ptr<torch::optim::SGD> sgd;

  TwoGroups() {
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{a},
                        std::make_unique<torch::optim::SGDOptions>(0.1));
    groups.emplace_back(std::vector<torch::Tensor>{b},
                        std::make_unique<torch::optim::SGDOptions>(0.5));
    sgd = std::make_shared<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(0.1));
  }
  void backward() { ((a * a).sum() + 2 * b.sum()).backward(); }
};

TEST(OptimizerTest, NullOptimizerIsAConfigError) {
  try {
    Optimizer optimizer(nullptr);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "fulgur::Optimizer was given a null LibTorch optimizer; pass the optimizer that "
                 "configure_optimizers creates (e.g. std::make_shared<torch::optim::SGD>(...))");
  }
}

TEST(OptimizerTest, StepWithoutClosureStepsTheLibTorchOptimizer) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  m.backward();  // grads: a -> 2a = [2, 4], b -> [2]
  torch::Tensor result = optimizer.step();
  EXPECT_FALSE(result.defined());
  EXPECT_DOUBLE_EQ(m.a[0].item<double>(), 1.0 - 0.1 * 2.0);
  EXPECT_DOUBLE_EQ(m.a[1].item<double>(), 2.0 - 0.1 * 4.0);
  EXPECT_DOUBLE_EQ(m.b[0].item<double>(), 3.0 - 0.5 * 2.0);
}

TEST(OptimizerTest, StepRunsTheClosureAndReturnsItsLoss) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  int calls = 0;
  torch::Tensor loss = optimizer.step([&] {
    ++calls;
    optimizer.zero_grad();
    torch::Tensor l = (m.a * m.a).sum() + 2 * m.b.sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(loss.defined());
  EXPECT_DOUBLE_EQ(loss.item<double>(), 1.0 + 4.0 + 6.0);
  EXPECT_DOUBLE_EQ(m.a[1].item<double>(), 2.0 - 0.1 * 4.0);
  EXPECT_DOUBLE_EQ(m.b[0].item<double>(), 3.0 - 0.5 * 2.0);
}

TEST(OptimizerTest, InstalledStepFnReplacesTheDirectStep) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  torch::optim::Optimizer* seen = nullptr;
  bool had_closure = false;
  optimizer.set_step_fn([&](torch::optim::Optimizer& opt, const Closure& closure) {
    seen = &opt;
    had_closure = static_cast<bool>(closure);
    return closure();  // runs the closure but deliberately does not step
  });
  m.backward();
  torch::Tensor result = optimizer.step([] { return torch::tensor(7.0); });
  EXPECT_EQ(seen, m.sgd.get());
  EXPECT_TRUE(had_closure);
  EXPECT_DOUBLE_EQ(result.item<double>(), 7.0);
  // The LibTorch optimizer did not step: the parameters are untouched.
  EXPECT_DOUBLE_EQ(m.a[0].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m.b[0].item<double>(), 3.0);
}

TEST(OptimizerTest, ZeroGradSetsEveryGroupsGradsToNoneByDefault) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  m.backward();
  ASSERT_TRUE(m.a.grad().defined());
  ASSERT_TRUE(m.b.grad().defined());
  optimizer.zero_grad();
  EXPECT_FALSE(m.a.grad().defined());
  EXPECT_FALSE(m.b.grad().defined());
  // The next backward allocates fresh gradients rather than accumulating.
  m.backward();
  EXPECT_DOUBLE_EQ(m.a.grad()[1].item<double>(), 4.0);
}

TEST(OptimizerTest, ZeroGradWithoutSetToNoneZeroesInPlace) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  m.backward();
  void* a_storage = m.a.grad().data_ptr();
  optimizer.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(m.a.grad().defined());
  ASSERT_TRUE(m.b.grad().defined());
  EXPECT_EQ(m.a.grad().data_ptr(), a_storage);
  EXPECT_EQ(m.a.grad().abs().sum().item<double>(), 0.0);
  EXPECT_EQ(m.b.grad().abs().sum().item<double>(), 0.0);
}

TEST(OptimizerTest, ExposesTheWrappedOptimizerAndItsGroups) {
  TwoGroups m;
  Optimizer optimizer(m.sgd);
  EXPECT_EQ(&optimizer.optimizer(), m.sgd.get());
  EXPECT_EQ(optimizer.shared().get(), m.sgd.get());
  ASSERT_EQ(optimizer.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(optimizer.param_groups()[1].options().get_lr(), 0.5);
}

}  // namespace
}  // namespace fulgur
