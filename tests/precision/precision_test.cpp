// Full precision ("32-true") and double precision ("64-true"): the closure wrapping of an
// optimizer step, gradient clipping by norm and by value, dtype conversion, the forward scope,
// the registry with its aliases and not-yet-available names, and gradient_clip_algorithm parsing.
#include "fulgur/precision/precision.h"

#include <c10/core/DefaultDtype.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/errors.h"
#include "fulgur/optim/grad_clip.h"
#include "fulgur/precision/double_precision.h"
#include "fulgur/precision/precision_registry.h"

namespace fulgur {
namespace {

using ::testing::ElementsAre;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Precision, FullPrecisionIsTheIdentity) {
  Precision p;
  EXPECT_EQ(p.name(), "32-true");
  EXPECT_EQ(p.state_key(), "Precision");
  auto x = torch::ones({2});
  EXPECT_TRUE(p.convert_input(x).is_same(x));
  EXPECT_TRUE(p.pre_backward(x).is_same(x));
  EXPECT_EQ(p.forward_context(), nullptr);
  EXPECT_TRUE(p.state_dict().isNone());
}

TEST(Precision, OptimizerStepRunsClosureThenAfterClosureThenSteps) {
  Precision p;
  auto w = torch::tensor({1.0f, -2.0f}, torch::requires_grad());
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.25));
  std::vector<std::string> order;
  auto loss = p.optimizer_step(
      sgd,
      [&] {
        order.push_back("closure");
        sgd.zero_grad();
        auto l = (w * w).sum();
        p.backward(p.pre_backward(l));
        return l;
      },
      [&] {
        order.push_back("after_closure");
        // The hooks see the gradients before the step changes the weights.
        EXPECT_TRUE(torch::allclose(w.grad(), torch::tensor({2.0f, -4.0f})));
        EXPECT_TRUE(torch::allclose(w.detach(), torch::tensor({1.0f, -2.0f})));
      });
  EXPECT_THAT(order, ElementsAre("closure", "after_closure"));
  EXPECT_FLOAT_EQ(loss.item<float>(), 5.0f);
  // w - 0.25 * 2w = 0.5 w
  EXPECT_TRUE(torch::allclose(w.detach(), torch::tensor({0.5f, -1.0f})));
}

TEST(Precision, OptimizerStepWithoutClosureStillRunsAfterClosure) {
  Precision p;
  auto w = torch::tensor({1.0f}, torch::requires_grad());
  (w * 3).sum().backward();
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(1.0));
  int after = 0;
  auto loss = p.optimizer_step(sgd, nullptr, [&] { ++after; });
  EXPECT_EQ(after, 1);
  EXPECT_FALSE(loss.defined());
  EXPECT_FLOAT_EQ(w.item<float>(), -2.0f);
  // An empty after_closure is allowed.
  p.optimizer_step(sgd, nullptr, nullptr);
  EXPECT_FLOAT_EQ(w.item<float>(), -5.0f);
}

struct ClipFixture {
  torch::Tensor a = torch::zeros({2}, torch::requires_grad());
  torch::Tensor b = torch::zeros({1}, torch::requires_grad());
  torch::Tensor unused = torch::zeros({1}, torch::requires_grad());  // no grad: skipped
  std::unique_ptr<torch::optim::SGD> sgd;
  ClipFixture() {
    a.mutable_grad() = torch::tensor({3.0f, 0.0f});
    b.mutable_grad() = torch::tensor({-4.0f});
    sgd = std::make_unique<torch::optim::SGD>(std::vector<torch::Tensor>{a, b, unused},
                                              torch::optim::SGDOptions(0.1));
  }
};

TEST(Precision, ClipsByTotalNorm) {
  ClipFixture f;  // total norm 5
  Precision().clip_gradients(*f.sgd, 1.0, GradClipAlgorithm::Norm);
  EXPECT_TRUE(torch::allclose(f.a.grad(), torch::tensor({0.6f, 0.0f}), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(f.b.grad(), torch::tensor({-0.8f}), 1e-4, 1e-5));
  EXPECT_FALSE(f.unused.grad().defined());
}

TEST(Precision, NormBelowTheLimitIsLeftAlone) {
  ClipFixture f;
  Precision().clip_gradients(*f.sgd, 10.0, GradClipAlgorithm::Norm);
  EXPECT_TRUE(torch::equal(f.a.grad(), torch::tensor({3.0f, 0.0f})));
}

TEST(Precision, ClipsByValue) {
  ClipFixture f;
  Precision().clip_gradients(*f.sgd, 2.0, GradClipAlgorithm::Value);
  EXPECT_TRUE(torch::equal(f.a.grad(), torch::tensor({2.0f, 0.0f})));
  EXPECT_TRUE(torch::equal(f.b.grad(), torch::tensor({-2.0f})));
}

TEST(Precision, NonPositiveClipValueMeansNoClipping) {
  ClipFixture f;
  Precision().clip_gradients(*f.sgd, 0.0, GradClipAlgorithm::Value);
  EXPECT_TRUE(torch::equal(f.b.grad(), torch::tensor({-4.0f})));
}

TEST(DoublePrecision, ConvertsModuleAndFloatingInputs) {
  DoublePrecision p;
  EXPECT_EQ(p.name(), "64-true");
  EXPECT_EQ(p.state_key(), "DoublePrecision");
  torch::nn::Linear linear(3, 2);
  p.convert_module(*linear);
  for (const auto& param : linear->parameters()) EXPECT_EQ(param.scalar_type(), torch::kFloat64);
  EXPECT_EQ(p.convert_input(torch::ones({2})).scalar_type(), torch::kFloat64);
  EXPECT_EQ(p.convert_input(torch::ones({2}, torch::kHalf)).scalar_type(), torch::kFloat64);
  EXPECT_EQ(p.convert_input(torch::ones({2}, torch::kLong)).scalar_type(), torch::kLong);
  EXPECT_EQ(p.convert_input(torch::ones({2}, torch::kBool)).scalar_type(), torch::kBool);
  EXPECT_FALSE(p.convert_input(torch::Tensor()).defined());
}

TEST(DoublePrecision, ForwardScopeMakesDoubleTheDefaultDtypeUntilItEnds) {
  DoublePrecision p;
  ASSERT_EQ(torch::ones({1}).scalar_type(), torch::kFloat32);
  {
    auto scope = p.forward_context();
    ASSERT_NE(scope, nullptr);
    EXPECT_EQ(torch::ones({1}).scalar_type(), torch::kFloat64);
  }
  EXPECT_EQ(torch::ones({1}).scalar_type(), torch::kFloat32);
}

TEST(PrecisionRegistry, NamesAndAliases) {
  auto& registry = precision_registry();
  EXPECT_EQ(registry.names(),
            (std::vector<std::string>{"16", "16-mixed", "16-true", "32", "32-true", "64", "64-true",
                                      "bf16", "bf16-mixed", "bf16-true"}));
  EXPECT_EQ(registry.create("32")->name(), "32-true");
  EXPECT_EQ(registry.create("32-true")->name(), "32-true");
  EXPECT_NE(dynamic_cast<DoublePrecision*>(registry.create("64").get()), nullptr);
  EXPECT_EQ(registry.create("64-true")->name(), "64-true");
  EXPECT_EQ(registry.create("bf16")->name(), "bf16-mixed");
  EXPECT_EQ(registry.create("16")->name(), "16-mixed");
  EXPECT_EQ(registry.create("bf16-true")->name(), "bf16-true");
  EXPECT_EQ(registry.create("16-true")->name(), "16-true");
}

TEST(PrecisionRegistry, UnknownNamesListTheChoices) {
  EXPECT_EQ(error_of([&] { precision_registry().create("17"); }),
            "precision=\"17\" is not a known precision; choose one of \"16\", \"16-mixed\", "
            "\"16-true\", \"32\", \"32-true\", \"64\", \"64-true\", \"bf16\", "
            "\"bf16-mixed\", \"bf16-true\"");
}

TEST(GradClipAlgorithm, ParsesNormAndValue) {
  EXPECT_EQ(parse_grad_clip_algorithm("norm"), GradClipAlgorithm::Norm);
  EXPECT_EQ(parse_grad_clip_algorithm("value"), GradClipAlgorithm::Value);
  EXPECT_EQ(to_string(GradClipAlgorithm::Norm), "norm");
  EXPECT_EQ(to_string(GradClipAlgorithm::Value), "value");
  EXPECT_EQ(error_of([] { parse_grad_clip_algorithm("Norm2"); }),
            "gradient_clip_algorithm=\"Norm2\" is not a known algorithm; choose one of \"norm\", "
            "\"value\"");
}

}  // namespace
}  // namespace fulgur
