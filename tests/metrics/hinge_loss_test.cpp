// HingeLoss: torchmetrics' documented values, then binary and multiclass (Crammer-Singer)
// against scikit-learn's hinge_loss and the squared and one-vs-all forms against numpy, on
// probabilities and logits fed in uneven batches, with ignore_index and extra dimensions; then
// the errors.
#include "fulgur/metrics/hinge_loss.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;
using fulgur::testing::values;

TEST(HingeLoss, TorchmetricsDocumentedValues) {
  const auto probs = torch::tensor({0.25, 0.25, 0.55, 0.75, 0.75}, torch::kDouble);
  const auto labels = torch::tensor({0, 0, 1, 1, 1}, torch::kLong);
  EXPECT_NEAR(HingeLoss({.task = "binary"}).forward(probs, labels).item<double>(), 0.69, 1e-12);
  EXPECT_NEAR(HingeLoss({.task = "binary", .squared = true}).forward(probs, labels).item<double>(),
              0.6905, 1e-12);

  const auto scores = torch::tensor(
      {{0.25, 0.20, 0.55}, {0.55, 0.05, 0.40}, {0.10, 0.30, 0.60}, {0.90, 0.05, 0.05}},
      torch::kDouble);
  const auto target = torch::tensor({0, 1, 2, 0}, torch::kLong);
  HingeLoss crammer({.task = "multiclass", .num_classes = 3});
  EXPECT_NEAR(crammer.forward(scores, target).item<double>(), 0.9125, 1e-12);
  EXPECT_TRUE(crammer.is_scalar());
  HingeLoss one_vs_all({.task = "multiclass", .num_classes = 3, .multiclass_mode = "one-vs-all"});
  EXPECT_THAT(
      values(one_vs_all.forward(scores, target)),
      ::testing::Pointwise(::testing::DoubleNear(1e-12), std::vector<double>{0.875, 1.125, 1.1}));
  EXPECT_FALSE(one_vs_all.is_scalar());
  EXPECT_EQ(crammer.higher_is_better(), false);
}

TEST(HingeLoss, BinaryMatchesSklearn) {
  torch::manual_seed(31);
  const int64_t n = 203;
  const auto probs = torch::rand({n}, torch::kDouble);
  const auto logits = torch::randn({n}, torch::kDouble) * 2;
  auto target = torch::randint(0, 2, {n}, torch::kLong);
  std::vector<Check> checks;
  for (const auto& [input, s] : {std::pair{probs, "probs"}, std::pair{logits, "sig(logits)"}}) {
    HingeLoss plain({.task = "binary"});
    checks.push_back({fmt::format("binary {}", s), feed(plain, input, target),
                      fmt::format("M.hinge_loss(y, {})", s)});
    HingeLoss squared({.task = "binary", .squared = true});
    checks.push_back({fmt::format("binary squared {}", s), feed(squared, input, target),
                      fmt::format("np.mean(np.maximum(0, 1 - (2 * y - 1) * {}) ** 2)", s)});
  }
  auto with_ignored = target.clone();
  with_ignored.masked_fill_(torch::rand({n}) < 0.2, -1);
  HingeLoss ignoring({.task = "binary", .ignore_index = -1});
  checks.push_back({"binary ignore_index", feed(ignoring, probs, with_ignored),
                    "M.hinge_loss(yi[yi != -1], probs[yi != -1])"});
  expect_reference(fmt::format("sig = lambda x: 1 / (1 + np.exp(-x))\nprobs = np.array({})\n"
                               "logits = np.array({})\ny = np.array({})\nyi = np.array({})\n",
                               py(probs), py(logits), py(target), py(with_ignored)),
                   checks);
}

TEST(HingeLoss, MulticlassMatchesSklearnAndNumpy) {
  torch::manual_seed(32);
  const int64_t n = 187, c = 4;
  const auto logits = torch::randn({n, c}, torch::kDouble) * 2;
  const auto probs = torch::softmax(torch::randn({n, c}, torch::kDouble), 1);
  const auto target = torch::randint(0, c, {n}, torch::kLong);
  std::vector<Check> checks;
  for (const auto& [input, s] : {std::pair{probs, "probs"}, std::pair{logits, "soft(logits)"}}) {
    for (bool squared : {false, true}) {
      HingeLoss crammer({.task = "multiclass", .squared = squared, .num_classes = c});
      checks.push_back({fmt::format("crammer-singer {} squared={}", s, squared),
                        feed(crammer, input, target),
                        squared ? fmt::format("np.mean(cs({}, y) ** 2)", s)
                                : fmt::format("M.hinge_loss(y, {}, labels=range(C))", s)});
      HingeLoss one_vs_all({.task = "multiclass",
                            .squared = squared,
                            .num_classes = c,
                            .multiclass_mode = "one-vs-all"});
      checks.push_back({fmt::format("one-vs-all {} squared={}", s, squared),
                        feed(one_vs_all, input, target),
                        fmt::format("(ova({}, y) ** {}).mean(0)", s, squared ? 2 : 1)});
    }
  }
  // [N, C, 2] scores for [N, 2] targets: every position a sample; ignored positions left out.
  const auto wide = torch::randn({n, c, 2}, torch::kDouble);
  auto wide_target = torch::randint(0, c, {n, 2}, torch::kLong);
  wide_target.masked_fill_(torch::rand({n, 2}) < 0.2, -1);
  HingeLoss extra({.task = "multiclass", .num_classes = c, .ignore_index = -1});
  checks.push_back({"crammer-singer [N, C, 2] ignore_index", feed(extra, wide, wide_target),
                    "M.hinge_loss(yw[kw], soft(pw)[kw], labels=range(C))"});
  expect_reference(
      fmt::format(
          "C = {}\nsoft = lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)\n"
          "def cs(p, y):\n"
          "    true = p[np.arange(len(y)), y]\n"
          "    other = np.where(np.eye(C, dtype=bool)[y], -np.inf, p).max(1)\n"
          "    return np.maximum(0, 1 - (true - other))\n"
          "def ova(p, y):\n"
          "    return np.maximum(0, 1 - np.where(np.eye(C, dtype=bool)[y], p, -p))\n"
          "probs = np.array({})\nlogits = np.array({})\ny = np.array({})\n"
          "pw = np.array({}).transpose(0, 2, 1).reshape(-1, C)\nyw = np.array({}).reshape(-1)\n"
          "kw = yw != -1\n",
          c, py(probs), py(logits), py(target), py(wide), py(wide_target)),
      checks);
}

TEST(HingeLoss, BadOptionsAndInputs) {
  EXPECT_THAT([] { HingeLoss({.task = "multilabel"}); },
              Throws<ConfigError>("HingeLoss(task=\"multilabel\")", "\"multiclass\""));
  EXPECT_THAT([] { HingeLoss({.task = "multiclass"}); },
              Throws<ConfigError>("HingeLoss", "num_classes >= 2"));
  EXPECT_THAT(
      [] { HingeLoss({.task = "multiclass", .num_classes = 3, .multiclass_mode = "one-vs-one"}); },
      Throws<ConfigError>("HingeLoss(multiclass_mode=\"one-vs-one\")", "\"one-vs-all\""));
  HingeLoss binary({.task = "binary", .ignore_index = -1});
  EXPECT_THAT(
      [&] {
        binary.update(torch::tensor({0, 1}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("HingeLoss", "preds must be scores"));
  EXPECT_THAT(
      [&] {
        binary.update(torch::rand({3}), torch::tensor({0, 1, 2}));
      },
      Throws<MetricError>("HingeLoss", "target"));
  binary.update(torch::rand({2}), torch::tensor({-1, -1}));
  EXPECT_THAT([&] { binary.compute(); }, Throws<MetricError>("HingeLoss", "ignored"));
  HingeLoss multiclass({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT(
      [&] {
        multiclass.update(torch::randn({2, 4}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("HingeLoss", "num_classes=3"));
}

}  // namespace
}  // namespace fulgur::metrics
