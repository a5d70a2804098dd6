// ModelPruning: which parameters it picks, when it prunes, that pruned weights stay zero while
// training goes on, and that the weights train as under PyTorch's pruning reparametrisation
// (torch.nn.utils.prune in Debian's python3-torch, the same loop written in Python).
#include "fulgur/callbacks/model_pruning.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "optim/python_reference.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// 4 -> 3 -> 1 with fixed weights of distinct magnitudes; SGD with momentum and weight decay,
// which would move pruned weights if nothing held them at zero.
class TinyNet : public Module {
 public:
  TinyNet() : Module("TinyNet") {
    net = register_module("net", torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::ReLU(),
                                                       torch::nn::Linear(3, 1)));
    torch::NoGradGuard no_grad;
    auto params = net->named_parameters();
    params["0.weight"].copy_(
        torch::arange(12, torch::kFloat).mul(5).remainder(12).sub(5.3).reshape({3, 4}) * 0.1);
    params["0.bias"].copy_(torch::tensor({0.05, -0.12, 0.31}));
    params["2.weight"].copy_(torch::tensor({{0.4, -0.27, 0.18}}));
    params["2.bias"].copy_(torch::tensor({0.02}));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    return torch::mse_loss(net->forward(batch.data), batch.target);
  }
  void validation_step(Batch& batch, int64_t) override {
    log("val_loss", torch::mse_loss(net->forward(batch.data), batch.target));
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(
        parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(0.01));
  }
  torch::nn::Sequential net{nullptr};
};

// The same net and loop in PyTorch: `prune_at` lists the epochs whose end prunes (global L1 over
// the four parameters), `lottery` resets the survivors to their first values. Prints the
// effective weights (orig * mask), flattened in the order named.
std::string python_run(const std::string& prune_at, bool lottery, double amount) {
  return fmt::format(R"(
import torch
from torch.nn.utils import prune
net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.arange(12, dtype=torch.float32).mul(5).remainder(12).sub(5.3).reshape(3, 4) * 0.1)
    net[0].bias.copy_(torch.tensor([0.05, -0.12, 0.31]))
    net[2].weight.copy_(torch.tensor([[0.4, -0.27, 0.18]]))
    net[2].bias.copy_(torch.tensor([0.02]))
params = [(net[0], "weight"), (net[2], "weight"), (net[0], "bias"), (net[2], "bias")]
first = [getattr(m, n).detach().clone() for m, n in params]
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=0.01)
x = torch.arange(24, dtype=torch.float32).reshape(6, 4) / 10.0
y = x.sum(1, keepdim=True)
for epoch in range(3):
    for b in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(x[2 * b:2 * b + 2]), y[2 * b:2 * b + 2]).backward()
        opt.step()
    if epoch in [{}]:
        prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount={})
        if {}:
            with torch.no_grad():
                for (m, n), value in zip(params, first):
                    getattr(m, n + "_orig").copy_(value)
for m, n in params:
    w = getattr(m, n + "_orig") * getattr(m, n + "_mask") if hasattr(m, n + "_mask") else getattr(m, n)
    print(" ".join(repr(v) for v in w.detach().flatten().tolist()))
)",
                     prune_at, amount, lottery ? "True" : "False");
}

std::vector<std::vector<double>> weights_of(TinyNet& model, const ModelPruning& pruning) {
  std::vector<std::vector<double>> rows;
  const auto params = model.named_parameters();
  for (const auto& name : pruning.parameter_names()) {
    const auto flat = params[name].detach().flatten().to(torch::kDouble).contiguous();
    rows.emplace_back(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
  }
  return rows;
}

void expect_near_rows(const std::vector<std::vector<double>>& actual,
                      const std::vector<std::vector<double>>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].size(), expected[i].size()) << i;
    for (size_t j = 0; j < actual[i].size(); ++j) {
      EXPECT_NEAR(actual[i][j], expected[i][j], 1e-6) << "parameter " << i << " entry " << j;
      EXPECT_EQ(actual[i][j] == 0, expected[i][j] == 0) << "parameter " << i << " entry " << j;
    }
  }
}

void fit(TinyNet& model, std::shared_ptr<ModelPruning> pruning, int64_t epochs,
         std::shared_ptr<DataLoader> val = nullptr) {
  Trainer trainer(quiet({.callbacks = {std::move(pruning)}, .max_epochs = epochs}));
  trainer.fit(model, make_loader(6), std::move(val));
}

TEST(ModelPruning, DefaultsPruneHalfOfWhatRemainsEachEpochAndResetTheSurvivorsLikePyTorch) {
  TinyNet model;
  auto pruning = std::make_shared<ModelPruning>("l1_unstructured");
  fit(model, pruning, 3);
  // Lightning's order: every weight, then every bias; containers are skipped.
  EXPECT_EQ(pruning->parameter_names(),
            (std::vector<std::string>{"net.0.weight", "net.2.weight", "net.0.bias", "net.2.bias"}));
  // 19 entries: 10 pruned (round(9.5) = 10), then 4 of 9 (round(4.5)), then 2 of 5 (round(2.5)).
  int64_t zeros = 0;
  for (const auto& p : model.parameters()) zeros += p.eq(0).sum().item<int64_t>();
  EXPECT_EQ(zeros, 16);
  // make_pruning_permanent: the masks are gone once training ends.
  EXPECT_FALSE(pruning->mask("net.0.weight").defined());
  expect_near_rows(weights_of(model, *pruning),
                   number_rows(run_python(python_run("0, 1, 2", true, 0.5))));
}

TEST(ModelPruning, PrunedWeightsStayZeroAndTheRestTrainsAsUnderPyTorchsReparametrisation) {
  TinyNet model;
  auto pruning = std::make_shared<ModelPruning>(
      "l1_unstructured",
      ModelPruningOptions{.amount = 0.4,
                          .apply_pruning = [](int64_t epoch) { return epoch == 0; },
                          .make_pruning_permanent = false,
                          .use_lottery_ticket_hypothesis = false});
  fit(model, pruning, 3);
  expect_near_rows(weights_of(model, *pruning),
                   number_rows(run_python(python_run("0", false, 0.4))));
  // Kept with make_pruning_permanent=false: no gradient reaches a pruned entry.
  const auto mask = pruning->mask("net.0.weight");
  ASSERT_TRUE(mask.defined());
  EXPECT_GT(mask.eq(0).sum().item<int64_t>(), 0);
  model.zero_grad();
  torch::mse_loss(model.net->forward(torch::ones({2, 4})), torch::zeros({2, 1})).backward();
  const auto grad = model.net->named_parameters()["0.weight"].grad();
  EXPECT_EQ(grad.masked_select(mask.eq(0)).abs().sum().item<double>(), 0.0);
  EXPECT_GT(grad.masked_select(mask.ne(0)).abs().sum().item<double>(), 0.0);
}

TEST(ModelPruning, VerboseReportsSparsityOncePerValidationEpochWhenAskedTo) {
  TinyNet model;
  auto pruning = std::make_shared<ModelPruning>(
      "l1_unstructured", ModelPruningOptions{.parameters_to_prune = {{"net.0", "weight"}},
                                             .use_global_unstructured = false,
                                             .amount = 3,
                                             .verbose = 2,
                                             .prune_on_train_epoch_end = false});
  ::testing::internal::CaptureStdout();
  fit(model, pruning, 2, make_loader(4));
  const std::string out = ::testing::internal::GetCapturedStdout();
  // Not in the sanity check: once per epoch.
  EXPECT_EQ(out,
            "Applied `l1_unstructured`. Pruned: 0/12 (0.00%) -> 3/12 (25.00%)\n"
            "Applied `l1_unstructured` to `net.0.weight` with amount=3. Pruned: 0 (0.00%) -> 3 "
            "(25.00%)\n"
            "Applied `l1_unstructured`. Pruned: 3/12 (25.00%) -> 6/12 (50.00%)\n"
            "Applied `l1_unstructured` to `net.0.weight` with amount=3. Pruned: 3 (25.00%) -> 6 "
            "(50.00%)\n");
  EXPECT_EQ(pruning->parameter_names(), (std::vector<std::string>{"net.0.weight"}));
}

TEST(ModelPruning, StructuredPruningRemovesWholeRowsWithAPerEpochAmount) {
  TinyNet model;
  auto pruning = std::make_shared<ModelPruning>(
      "ln_structured", ModelPruningOptions{.parameters_to_prune = {{"net.0", "weight"}},
                                           .use_global_unstructured = false,
                                           .amount = [](int64_t epoch) -> pruning::Amount {
                                             return epoch == 0 ? int64_t{1} : int64_t{0};
                                           },
                                           .use_lottery_ticket_hypothesis = false,
                                           .pruning_dim = 0,
                                           .pruning_norm = 2});
  fit(model, pruning, 2);
  const auto w = model.net->named_parameters()["0.weight"];
  EXPECT_EQ(w.abs().sum(1).eq(0).sum().item<int64_t>(), 1);  // one whole output row
  EXPECT_EQ(w.eq(0).sum().item<int64_t>(), 4);
}

TEST(ModelPruning, MistakesAreMisconfigurationErrorsWithLightningsText) {
  const auto error_of = [](const std::string& fn, ModelPruningOptions options) -> std::string {
    try {
      ModelPruning pruning(fn, std::move(options));
    } catch (const Error& e) {
      return e.what();
    }
    return "<no error>";
  };
  EXPECT_EQ(error_of("l2_unstructured", {}),
            "The provided `pruning_fn` l2_unstructured isn't available in PyTorch's built-in "
            "functions: ['ln_structured', 'l1_unstructured', 'random_structured', "
            "'random_unstructured']");
  EXPECT_EQ(error_of("ln_structured", {.use_global_unstructured = false}),
            "When requesting `structured` pruning, the `pruning_dim` should be provided.");
  EXPECT_EQ(error_of("ln_structured", {.use_global_unstructured = false, .pruning_dim = 0}),
            "When requesting `ln_structured` pruning, the `pruning_norm` should be provided.");
  EXPECT_EQ(error_of("random_structured", {.pruning_dim = 0}),
            "Only the \"unstructured\" PRUNING_TYPE is supported with "
            "`use_global_unstructured=True`. Found method RandomStructured of type structured.");
  EXPECT_EQ(error_of("l1_unstructured", {.parameter_names = {"weights"}}),
            "The provided `parameter_names` name: weights isn't in ('weight', 'bias')");
  EXPECT_EQ(error_of("l1_unstructured", {.amount = 1.5}),
            "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer");
  EXPECT_EQ(error_of("l1_unstructured", {.verbose = 3}), "`verbose` must be any of (0, 1, 2)");

  TinyNet model;
  Trainer trainer(quiet(
      {.callbacks = {std::make_shared<ModelPruning>(
           "L1_Unstructured", ModelPruningOptions{.parameters_to_prune = {{"net.1", "weight"},
                                                                          {"net.5", "weight"},
                                                                          {"net.0", "scale"}}})},
       .max_epochs = 1}));
  try {
    trainer.fit(model, make_loader(6));
    FAIL() << "expected a MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "Some provided `parameters_to_prune` don't exist in the model. Found missing "
                 "modules: [net.5] and missing parameters: [weight, scale]");
  }
  // Structured rules need every parameter to have pruning_dim; biases have one dimension.
  Trainer structured(
      quiet({.callbacks = {std::make_shared<ModelPruning>(
                 "ln_structured",
                 ModelPruningOptions{
                     .use_global_unstructured = false, .pruning_dim = 0, .pruning_norm = 1})},
             .max_epochs = 1}));
  try {
    structured.fit(model, make_loader(6));
    FAIL() << "expected a MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "net.0.bias cannot be pruned along pruning_dim=0: its shape is [3], and "
                 "structured pruning needs a multidimensional tensor with that dimension");
  }
}

}  // namespace
}  // namespace fulgur::testing
