// ClasswiseWrapper, MinMaxMetric and MultitaskWrapper, torchmetrics' wrappers whose compute() is
// a dict: the
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
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/mean_absolute_error.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_collection.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/min_max_metric.h"
#include "fulgur/metrics/multitask_wrapper.h"
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

// torchmetrics' documented example: a binary classification and a regression task.
MultitaskWrapper::TaskTensors example_preds() {
  return {{"Classification", torch::tensor({0, 0, 1}, torch::kLong)},
          {"Regression", torch::tensor({3.0, 5.0, 2.5})}};
}
MultitaskWrapper::TaskTensors example_targets() {
  return {{"Classification", torch::tensor({0, 1, 0}, torch::kLong)},
          {"Regression", torch::tensor({2.5, 5.0, 4.0})}};
}
std::shared_ptr<Accuracy> binary_accuracy() {
  return std::make_shared<Accuracy>(ClassificationOptions{.task = "binary"});
}

TEST(MultitaskWrapper, TorchmetricsDocumentedValues) {
  MultitaskWrapper single({{"Classification", binary_accuracy()},
                           {"Regression", std::make_shared<MeanSquaredError>()}});
  single.update(example_preds(), example_targets());
  EXPECT_THAT(numbers(single.compute()),
              ElementsAre(Pair("Classification", 1.0 / 3), Pair("Regression", 2.5 / 3)));

  auto classification = std::make_shared<MetricCollection>(std::vector<MetricCollection::Entry>{
      {"BinaryAccuracy", binary_accuracy()},
      {"BinaryF1Score", std::make_shared<F1Score>(ClassificationOptions{.task = "binary"})}});
  auto regression = std::make_shared<MetricCollection>(std::vector<MetricCollection::Entry>{
      {"MeanSquaredError", std::make_shared<MeanSquaredError>()},
      {"MeanAbsoluteError", std::make_shared<MeanAbsoluteError>()}});
  MultitaskWrapper collections({{"Classification", classification}, {"Regression", regression}});
  EXPECT_THAT(collections.keys(),
              ElementsAre("Classification_BinaryAccuracy", "Classification_BinaryF1Score",
                          "Regression_MeanSquaredError", "Regression_MeanAbsoluteError"));
  // forward: the batch's values, here the same as compute()'s after one batch.
  EXPECT_THAT(numbers(collections.forward(example_preds(), example_targets())),
              ElementsAre(Pair("Classification_BinaryAccuracy", 1.0 / 3),
                          Pair("Classification_BinaryF1Score", 0.0),
                          Pair("Regression_MeanAbsoluteError", 2.0 / 3),
                          Pair("Regression_MeanSquaredError", 2.5 / 3)));
  EXPECT_EQ(numbers(collections.compute()),
            numbers(collections.forward(example_preds(), example_targets())));

  MultitaskWrapper prefixed(
      {{"Classification", binary_accuracy()}, {"Regression", std::make_shared<MeanSquaredError>()}},
      {.prefix = "train_", .postfix = "_step"});
  prefixed.update(example_preds(), example_targets());
  EXPECT_THAT(numbers(prefixed.compute()), ElementsAre(Pair("train_Classification_step", 1.0 / 3),
                                                       Pair("train_Regression_step", 2.5 / 3)));
  prefixed.reset();
  EXPECT_THROW(prefixed.compute(), MetricError);
}

TEST(MultitaskWrapper, SyncsAndSavesEveryTask) {
  auto make = [] {
    return MultitaskWrapper(
        {{"Classification", binary_accuracy()},
         {"Regression", std::make_shared<MetricCollection>(std::vector<MetricCollection::Entry>{
                            {"mse", std::make_shared<MeanSquaredError>()}})}});
  };
  // Rank 0 sees the example, rank 1 the example with every answer right: 4/6 and 2.5/6.
  ThreadWorld world(2);
  std::vector<std::map<std::string, double>> synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    auto wrapper = make();
    wrapper.update(example_preds(), rank == 0 ? example_targets() : example_preds());
    synced[rank] = numbers(wrapper.compute(strategy));
  });
  for (const auto& values : synced) {
    EXPECT_THAT(values,
                ElementsAre(Pair("Classification", 4.0 / 6), Pair("Regression_mse", 2.5 / 6)));
  }

  auto saved = make();
  saved.update(example_preds(), example_targets());
  auto loaded = make();
  loaded.load_state_dict(saved.state_dict());
  EXPECT_EQ(numbers(loaded.compute()), numbers(saved.compute()));
  MultitaskWrapper other({{"Detection", binary_accuracy()}});
  EXPECT_THAT([&] { other.load_state_dict(saved.state_dict()); },
              Throws<CheckpointError>("MultitaskWrapper state in the checkpoint has 2 tasks",
                                      "this wrapper 1 (Detection)"));
}

TEST(MultitaskWrapper, Errors) {
  using Tasks = std::vector<std::pair<std::string, MultitaskWrapper::TaskMetric>>;
  EXPECT_THAT([] { MultitaskWrapper(Tasks{}); },
              Throws<ConfigError>("MultitaskWrapper", "at least one task"));
  EXPECT_THAT(
      [] {
        MultitaskWrapper({{"", binary_accuracy()}});
      },
      Throws<ConfigError>("MultitaskWrapper", "a task needs a name"));
  EXPECT_THAT(
      [] {
        MultitaskWrapper({{"a", std::shared_ptr<Metric>()}});
      },
      Throws<ConfigError>("task \"a\"", "has no metric"));
  EXPECT_THAT(
      [] {
        MultitaskWrapper({{"a", binary_accuracy()}, {"a", binary_accuracy()}});
      },
      Throws<ConfigError>("the task \"a\"", "given twice"));
  MultitaskWrapper wrapper({{"Classification", binary_accuracy()},
                            {"Regression", std::make_shared<MeanSquaredError>()}});
  auto missing = example_preds();
  missing.erase("Regression");
  EXPECT_THAT(
      [&] { wrapper.update(missing, example_targets()); },
      Throws<MetricError>("the tasks' names as keys, [Classification, Regression]",
                          "preds has [Classification], targets [Classification, Regression]"));
}

}  // namespace
}  // namespace fulgur::metrics
