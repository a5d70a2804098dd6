// ClasswiseWrapper and MinMaxMetric, torchmetrics' wrappers whose compute() is a dict: the
// keys as torchmetrics names them, the values against hand-computed ones, across thread
// ranks, saved and loaded; then the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/classwise_wrapper.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/min_max_metric.h"
#include "fulgur/metrics/sum_metric.h"
#include "metrics/classification_helpers.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;
using ::testing::ElementsAre;
using ::testing::Pair;

std::shared_ptr<Accuracy> per_class_accuracy() {
  return std::make_shared<Accuracy>(
      ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = "none"});
}

std::map<std::string, double> numbers(const std::map<std::string, at::Tensor>& values) {
  std::map<std::string, double> out;
  for (const auto& [key, value] : values) {
    EXPECT_EQ(value.dim(), 0) << key;
    out[key] = value.item<double>();
  }
  return out;
}

TEST(ClasswiseWrapper, OneNamedValuePerClass) {
  const auto target = torch::tensor({0, 0, 1, 1, 2, 2, 2, 0}, torch::kLong);
  const auto preds = torch::tensor({0, 1, 1, 1, 2, 0, 2, 0}, torch::kLong);
  // Per-class accuracy is each class' recall: 2/3, 2/2, 2/3.
  ClasswiseWrapper named(per_class_accuracy(), {.labels = {"cat", "dog", "bird"}});
  named.update(preds.slice(0, 0, 5), target.slice(0, 0, 5));
  named.update(preds.slice(0, 5), target.slice(0, 5));
  EXPECT_THAT(numbers(named.compute()),
              ElementsAre(Pair("accuracy_bird", 2.0 / 3), Pair("accuracy_cat", 2.0 / 3),
                          Pair("accuracy_dog", 1.0)));

  ClasswiseWrapper indexed(per_class_accuracy());
  EXPECT_THAT(numbers(indexed.forward(preds, target)),
              ElementsAre(Pair("accuracy_0", 2.0 / 3), Pair("accuracy_1", 1.0),
                          Pair("accuracy_2", 2.0 / 3)));
  // The batch value alone: the second batch only.
  EXPECT_THAT(
      numbers(indexed.forward(preds.slice(0, 5), target.slice(0, 5))),
      ElementsAre(Pair("accuracy_0", 1.0), Pair("accuracy_1", 0.0), Pair("accuracy_2", 0.5)));

  ClasswiseWrapper prefixed(per_class_accuracy(),
                            {.labels = {"cat", "dog", "bird"}, .prefix = "val_acc/"});
  prefixed.update(preds, target);
  EXPECT_THAT(numbers(prefixed.compute()),
              ElementsAre(Pair("val_acc/bird", 2.0 / 3), Pair("val_acc/cat", 2.0 / 3),
                          Pair("val_acc/dog", 1.0)));
  ClasswiseWrapper postfixed(per_class_accuracy(), {.postfix = "_acc"});
  postfixed.update(preds, target);
  EXPECT_THAT(numbers(postfixed.compute()),
              ElementsAre(Pair("0_acc", 2.0 / 3), Pair("1_acc", 1.0), Pair("2_acc", 2.0 / 3)));
  postfixed.reset();
  EXPECT_THAT([&] { postfixed.compute(); }, Throws<MetricError>("Accuracy", "before any update"));
}

TEST(ClasswiseWrapper, ComputeWithAStrategyIsEveryRanksValue) {
  ThreadWorld world(2);
  std::vector<std::map<std::string, double>> synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    ClasswiseWrapper named(per_class_accuracy(), {.labels = {"a", "b", "c"}});
    // Rank 0 gets every class right, rank 1 every class wrong.
    const auto target = torch::tensor({0, 1, 2}, torch::kLong);
    named.update(rank == 0 ? target : (target + 1) % 3, target);
    synced[rank] = numbers(named.compute(strategy));
  });
  for (const auto& values : synced) {
    EXPECT_THAT(values, ElementsAre(Pair("accuracy_a", 0.5), Pair("accuracy_b", 0.5),
                                    Pair("accuracy_c", 0.5)));
  }
}

TEST(ClasswiseWrapper, Errors) {
  EXPECT_THAT([] { ClasswiseWrapper(nullptr); }, Throws<ConfigError>("ClasswiseWrapper", "metric"));
  EXPECT_THAT(
      [] {
        ClasswiseWrapper(std::make_shared<Accuracy>(
            ClassificationOptions{.task = "multiclass", .num_classes = 3}));
      },
      Throws<ConfigError>("ClasswiseWrapper: Accuracy computes a single number",
                          "average=\"none\""));
  ClasswiseWrapper two_labels(per_class_accuracy(), {.labels = {"cat", "dog"}});
  two_labels.update(torch::tensor({0, 1, 2}), torch::tensor({0, 1, 2}));
  EXPECT_THAT([&] { two_labels.compute(); },
              Throws<MetricError>("Accuracy computed a tensor of shape [3]", "(2 labels)"));
}

TEST(MinMaxMetric, TracksTheLowestAndHighestComputedValue) {
  MinMaxMetric tracked(std::make_shared<MeanMetric>());
  const auto step = [&](double value) {
    tracked.update(torch::tensor(value, torch::kDouble));
    return numbers(tracked.compute());
  };
  EXPECT_THAT(step(1.0), ElementsAre(Pair("max", 1.0), Pair("min", 1.0), Pair("raw", 1.0)));
  EXPECT_THAT(step(5.0), ElementsAre(Pair("max", 3.0), Pair("min", 1.0), Pair("raw", 3.0)));
  EXPECT_THAT(step(-7.0),
              ElementsAre(Pair("max", 3.0), Pair("min", -1.0 / 3), Pair("raw", -1.0 / 3)));
  // forward's batch value leaves min and max alone.
  EXPECT_DOUBLE_EQ(tracked.forward(torch::tensor(100.0, torch::kDouble)).item<double>(), 100.0);
  EXPECT_THAT(numbers(tracked.compute()),
              ElementsAre(Pair("max", 24.75), Pair("min", -1.0 / 3), Pair("raw", 24.75)));

  // Saved and loaded: the metric's states and the bounds.
  MinMaxMetric restored(std::make_shared<MeanMetric>());
  restored.load_state_dict(tracked.state_dict());
  EXPECT_THAT(numbers(restored.compute()),
              ElementsAre(Pair("max", 24.75), Pair("min", -1.0 / 3), Pair("raw", 24.75)));

  tracked.reset();
  EXPECT_THAT(step(2.0), ElementsAre(Pair("max", 2.0), Pair("min", 2.0), Pair("raw", 2.0)));
}

TEST(MinMaxMetric, ComputeWithAStrategyIsEveryRanksValue) {
  ThreadWorld world(2);
  std::vector<std::map<std::string, double>> synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    MinMaxMetric tracked(std::make_shared<SumMetric>());
    tracked.update(torch::tensor(rank == 0 ? 1.0 : 10.0));
    tracked.compute(strategy);
    tracked.update(torch::tensor(-20.0));
    synced[rank] = numbers(tracked.compute(strategy));
  });
  for (const auto& values : synced) {
    EXPECT_THAT(values, ElementsAre(Pair("max", 11.0), Pair("min", -29.0), Pair("raw", -29.0)));
  }
}

TEST(MinMaxMetric, Errors) {
  EXPECT_THAT([] { MinMaxMetric(nullptr); }, Throws<ConfigError>("MinMaxMetric", "metric"));
  EXPECT_THAT(
      [] { MinMaxMetric{per_class_accuracy()}; },
      Throws<ConfigError>("MinMaxMetric: Accuracy computes more than one number", "scalar metric"));
  MinMaxMetric tracked(std::make_shared<MeanMetric>());
  EXPECT_THAT([&] { tracked.compute(); }, Throws<MetricError>("MeanMetric", "before any update"));
  EXPECT_THAT([&] { tracked.load_state_dict(c10::IValue(1.5)); },
              Throws<CheckpointError>("MinMaxMetric state", "not a dict"));
  auto state = tracked.state_dict().toGenericDict();
  ASSERT_EQ(state.erase("max_val"), 1u);
  EXPECT_THAT([&] { tracked.load_state_dict(state); },
              Throws<CheckpointError>("MinMaxMetric state", "no number \"max_val\""));
}

}  // namespace
}  // namespace fulgur::metrics
