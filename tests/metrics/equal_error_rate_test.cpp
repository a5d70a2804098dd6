// EER: the point of each ROC curve where the false positive rate is closest to the false
// negative rate, against the same reading of sklearn's roc_curve (binary, multiclass
// one-vs-rest, multilabel) and of a binned curve in numpy; perfect and reversed rankings.
#include "fulgur/metrics/equal_error_rate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

const char* kEer =
    "def eer_of(fpr, tpr):\n"
    "    i = np.argmin(np.abs(fpr - (1 - tpr)))\n"
    "    return (fpr[i] + 1 - tpr[i]) / 2\n"
    "def eer(y, s):\n"
    "    fpr, tpr, _ = M.roc_curve(y, s, drop_intermediate=False)\n"
    "    return eer_of(fpr, tpr)\n"
    "def binned(y, s, n):\n"
    "    th = np.linspace(0, 1, n)[::-1]\n"
    "    hit = s[None, :] >= th[:, None]\n"
    "    return eer_of((hit & (y == 0)).sum(1) / (y == 0).sum(),\n"
    "                  (hit & (y == 1)).sum(1) / (y == 1).sum())\n";

TEST(EER, MatchesSklearnCurves) {
  torch::manual_seed(62);
  const int64_t n = 401, c = 4;
  const auto target = torch::randint(0, 2, {n}, torch::kLong);
  // Rounded scores: ties make vertical and diagonal segments.
  const auto probs =
      ((target.to(torch::kDouble) * 0.3 + torch::rand({n}, torch::kDouble) * 0.7) * 100).round() /
      100;
  const auto labels = torch::randint(0, c, {n}, torch::kLong);
  const auto class_probs =
      (torch::randn({n, c}, torch::kDouble) + torch::one_hot(labels, c).to(torch::kDouble))
          .softmax(1);
  const auto multilabel = torch::randint(0, 2, {n, c}, torch::kLong);
  const auto label_probs =
      (torch::randn({n, c}, torch::kDouble) + multilabel.to(torch::kDouble)).sigmoid();

  std::vector<Check> checks;
  EER binary({.task = "binary"});
  checks.push_back({"binary", feed(binary, probs, target), "eer(y, p)"});
  EER binned({.task = "binary", .thresholds = 11});
  checks.push_back({"binned", feed(binned, probs, target), "binned(y, p, 11)"});
  EER multiclass({.task = "multiclass", .num_classes = c});
  checks.push_back({"multiclass", feed(multiclass, class_probs, labels),
                    "[eer(L == k, P[:, k]) for k in range(4)]"});
  EER per_label({.task = "multilabel", .num_labels = c});
  checks.push_back({"multilabel", feed(per_label, label_probs, multilabel),
                    "[eer(Y[:, k], Q[:, k]) for k in range(4)]"});
  expect_reference(std::string(kEer) + "y = np.array(" + py(target) + ")\np = np.array(" +
                       py(probs) + ")\nL = np.array(" + py(labels) + ")\nP = np.array(" +
                       py(class_probs) + ")\nY = np.array(" + py(multilabel) + ")\nQ = np.array(" +
                       py(label_probs) + ")\n",
                   checks, 1e-12);
  EXPECT_TRUE(binary.is_scalar());
  EXPECT_FALSE(multiclass.is_scalar());
  EXPECT_EQ(binary.higher_is_better(), false);
}

TEST(EER, PerfectAndReversedRankings) {
  const auto target = torch::tensor({0, 0, 1, 1, 0, 1});
  const auto scores = torch::tensor({0.1, 0.2, 0.8, 0.9, 0.3, 0.7});
  EER perfect({.task = "binary"});
  EXPECT_EQ(perfect.forward(scores, target).item<double>(), 0.0);
  EER reversed({.task = "binary"});
  EXPECT_EQ(reversed.forward(1 - scores, target).item<double>(), 1.0);
  EXPECT_THAT([] { EER({.task = "multiclass"}); }, Throws<ConfigError>("EER", "num_classes"));
}

}  // namespace
}  // namespace fulgur::metrics
