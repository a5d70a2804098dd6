// The pruning rules against torch.nn.utils.prune (Debian's python3-torch): the same masks for
// local and global L1 pruning, Ln-structured pruning, iterative pruning and Python's
// half-to-even rounding, and, from the same seed, the same random masks.
#include "fulgur/pruning/pruning_methods.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "optim/python_reference.h"

namespace fulgur::testing {
namespace {

using pruning::prune_structured;
using pruning::prune_unstructured;

// Distinct magnitudes, so no rule meets a tie: k - 15.25 in a scrambled order.
torch::Tensor weight() {
  return torch::arange(32, torch::kFloat).mul(7).remainder(32).sub(15.25).reshape({8, 4});
}
torch::Tensor bias() { return torch::arange(8, torch::kFloat).mul(3).remainder(8).sub(3.6); }

const char* kReference = R"(
import math
import torch
from torch.nn.utils import prune

def layer():
    lin = torch.nn.Linear(4, 8)
    with torch.no_grad():
        lin.weight.copy_(torch.arange(32, dtype=torch.float32).mul(7).remainder(32).sub(15.25).reshape(8, 4))
        lin.bias.copy_(torch.arange(8, dtype=torch.float32).mul(3).remainder(8).sub(3.6))
    return lin

def show(mask):
    print(" ".join(str(int(v)) for v in mask.flatten().tolist()))

lin = layer()
prune.l1_unstructured(lin, "weight", amount=0.3)
show(lin.weight_mask)
prune.l1_unstructured(lin, "weight", amount=0.5)
show(lin.weight_mask)

lin = layer()
params = [(lin, "weight"), (lin, "bias")]
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
show(torch.cat([lin.weight_mask.flatten(), lin.bias_mask]))
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=5)
show(torch.cat([lin.weight_mask.flatten(), lin.bias_mask]))

lin = layer()
prune.ln_structured(lin, "weight", amount=0.25, n=2, dim=0)
show(lin.weight_mask)
prune.ln_structured(lin, "weight", amount=0.5, n=2, dim=0)
show(lin.weight_mask)
lin = layer()
prune.ln_structured(lin, "weight", amount=1, n=1, dim=1)
show(lin.weight_mask)
lin = layer()
prune.ln_structured(lin, "weight", amount=3, n=float("inf"), dim=-2)
show(lin.weight_mask)

five = torch.nn.Linear(5, 1)
with torch.no_grad():
    five.weight.copy_(torch.tensor([[0.5, -0.1, 0.3, -0.9, 0.2]]))
prune.l1_unstructured(five, "weight", amount=0.5)
show(five.weight_mask)
prune.l1_unstructured(five, "weight", amount=0.7)
show(five.weight_mask)

lin = layer()  # Linear's own initialisation draws too: seed after it
torch.manual_seed(7)
prune.random_unstructured(lin, "weight", amount=0.5)
prune.random_unstructured(lin, "weight", amount=0.5)
show(lin.weight_mask)
lin = layer()
torch.manual_seed(3)
prune.random_structured(lin, "weight", amount=0.5, dim=0)
prune.random_structured(lin, "weight", amount=0.25, dim=0)
show(lin.weight_mask)
)";

class PruningMethodsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { reference_ = number_rows(run_python(kReference)); }
  static std::vector<double> row(size_t i) {
    return i < reference_.size() ? reference_[i] : std::vector<double>{};
  }
  static std::vector<double> values(const torch::Tensor& mask) {
    const auto flat = mask.flatten().to(torch::kDouble).contiguous();
    return {flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel()};
  }
  static std::vector<std::vector<double>> reference_;
};
std::vector<std::vector<double>> PruningMethodsTest::reference_;

TEST_F(PruningMethodsTest, L1UnstructuredPrunesTheSmallestAndThenOfWhatRemains) {
  const auto w = weight();
  const auto first = prune_unstructured(w, torch::ones_like(w), 0.3, /*random=*/false);
  EXPECT_EQ(values(first), row(0));
  EXPECT_EQ(first.eq(0).sum().item<int64_t>(), 10);  // round(0.3 * 32)
  const auto second = prune_unstructured(w * first, first, 0.5, false);
  EXPECT_EQ(values(second), row(1));
  EXPECT_EQ(second.eq(0).sum().item<int64_t>(), 10 + 11);  // round(0.5 * 22) = 11
}

TEST_F(PruningMethodsTest, GlobalL1RanksEveryParameterTogether) {
  const auto scores = torch::cat({weight().flatten(), bias()});
  const auto first = prune_unstructured(scores, torch::ones_like(scores), 0.4, false);
  EXPECT_EQ(values(first), row(2));
  const auto second = prune_unstructured(scores * first, first, int64_t{5}, false);
  EXPECT_EQ(values(second), row(3));
  EXPECT_EQ(second.eq(0).sum().item<int64_t>(), 16 + 5);
}

TEST_F(PruningMethodsTest, LnStructuredPrunesWholeSlices) {
  const auto w = weight();
  const auto first = prune_structured(w, torch::ones_like(w), 0.25, 0, 2.0);
  EXPECT_EQ(values(first), row(4));
  EXPECT_EQ(first.sum(1).eq(0).sum().item<int64_t>(), 2);  // two whole rows
  const auto second = prune_structured(w * first, first, 0.5, 0, 2.0);
  EXPECT_EQ(values(second), row(5));
  EXPECT_EQ(second.sum(1).eq(0).sum().item<int64_t>(), 2 + 3);
  EXPECT_EQ(values(prune_structured(w, torch::ones_like(w), int64_t{1}, 1, 1.0)), row(6));
  EXPECT_EQ(values(prune_structured(w, torch::ones_like(w), int64_t{3}, -2, INFINITY)), row(7));
}

TEST_F(PruningMethodsTest, FractionsRoundHalfToEvenAsPython) {
  const auto w = torch::tensor({{0.5, -0.1, 0.3, -0.9, 0.2}});
  const auto first = prune_unstructured(w, torch::ones_like(w), 0.5, false);  // round(2.5) = 2
  EXPECT_EQ(values(first), row(8));
  EXPECT_EQ(values(first), (std::vector<double>{1, 0, 1, 1, 0}));
  EXPECT_EQ(values(prune_unstructured(w * first, first, 0.7, false)), row(9));  // round(2.1) = 2
  EXPECT_EQ(pruning::entries_to_prune(0.5, 7), 4);                              // round(3.5) = 4
}

TEST_F(PruningMethodsTest, RandomRulesDrawWhatPyTorchDrawsFromTheSameSeed) {
  const auto w = weight();
  torch::manual_seed(7);
  auto mask = prune_unstructured(w, torch::ones_like(w), 0.5, /*random=*/true);
  mask = prune_unstructured(w * mask, mask, 0.5, true);
  EXPECT_EQ(values(mask), row(10));
  EXPECT_EQ(mask.eq(0).sum().item<int64_t>(), 24);

  torch::manual_seed(3);
  mask = prune_structured(w, torch::ones_like(w), 0.5, 0, std::nullopt);
  mask = prune_structured(w * mask, mask, 0.25, 0, std::nullopt);
  EXPECT_EQ(values(mask), row(11));
  EXPECT_EQ(mask.sum(1).eq(0).sum().item<int64_t>(), 4 + 1);
}

TEST_F(PruningMethodsTest, BadAmountsAreErrorsWithPyTorchsText) {
  const auto w = weight();
  const auto error_of = [&](pruning::Amount amount) -> std::string {
    try {
      prune_unstructured(w, torch::ones_like(w), amount, false);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "<no error>";
  };
  EXPECT_EQ(error_of(1.5),
            "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer");
  EXPECT_EQ(error_of(int64_t{-1}),
            "amount=-1 should either be a float in the range [0, 1] or a non-negative integer");
  EXPECT_EQ(error_of(int64_t{33}),
            "amount=33 should be smaller than the number of parameters to prune=32");
  EXPECT_THROW(prune_structured(w, torch::ones_like(w), 0.5, 2, 2.0), ConfigError);
  const auto b = bias();
  try {
    prune_structured(b, torch::ones_like(b), 0.5, 0, 2.0);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "Structured pruning can only be applied to multidimensional tensors. Found tensor "
                 "of shape [8] with 1 dims");
  }
}

}  // namespace
}  // namespace fulgur::testing
