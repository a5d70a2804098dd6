// Running (any metric over its last `window` updates) and Metric::merge_state, on which it
// rests: the running value equals a fresh metric fed the window's batches (sum, max and cat
// states), forward's batch value, a second round after reset, two thread ranks, a state dict
// that carries on, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/max_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/running.h"
#include "fulgur/metrics/running_mean.h"
#include "metrics/classification_helpers.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;

struct Batch {
  at::Tensor preds, target;
};

// Nine batches of 15 to 19 samples of 3 classes.
std::vector<Batch> batches(int64_t seed) {
  torch::manual_seed(seed);
  std::vector<Batch> out;
  for (int64_t i = 0; i < 9; ++i) {
    const int64_t n = 15 + (i * 5) % 5;
    out.push_back({torch::randn({n, 3}, torch::kDouble), torch::randint(0, 3, {n}, torch::kLong)});
  }
  return out;
}

std::unique_ptr<Metric> accuracy() {
  return std::make_unique<Accuracy>(
      ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = "macro"});
}

std::unique_ptr<Metric> auroc() {
  return std::make_unique<AUROC>(AUROCOptions{.task = "multiclass", .num_classes = 3});
}

// A fresh metric's value on batches [first, last).
double value_of(std::unique_ptr<Metric> metric, const std::vector<Batch>& data, size_t first,
                size_t last) {
  for (size_t i = first; i < last; ++i) metric->update(data[i].preds, data[i].target);
  return metric->compute().item<double>();
}

TEST(Running, EqualsTheMetricOnTheLastWindowOfBatches) {
  const auto data = batches(21);
  for (auto make : {accuracy, auroc}) {
    Running running(make(), 3);
    for (size_t i = 0; i < data.size(); ++i) {
      running.update(data[i].preds, data[i].target);
      const size_t first = i + 1 > 3 ? i + 1 - 3 : 0;
      EXPECT_NEAR(running.compute().item<double>(), value_of(make(), data, first, i + 1), 1e-12)
          << running.base().name() << " after batch " << i;
    }
    EXPECT_EQ(running.update_count(), 9);
    EXPECT_EQ(running.higher_is_better(), true);
    // After reset, a second round starts from an empty window.
    running.reset();
    running.update(data[4].preds, data[4].target);
    EXPECT_NEAR(running.compute().item<double>(), value_of(make(), data, 4, 5), 1e-12);
  }
}

TEST(Running, MaxStatesAndForward) {
  Running running(std::make_unique<MaxMetric>(), 2);
  EXPECT_EQ(running.forward(torch::tensor({5.0, 1.0})).item<double>(), 5.0);
  EXPECT_EQ(running.forward(torch::tensor(2.0)).item<double>(), 2.0);  // the batch alone
  EXPECT_EQ(running.compute().item<double>(), 5.0);
  running.update(torch::tensor(3.0));  // 5 leaves the window
  EXPECT_EQ(running.compute().item<double>(), 3.0);
  // Each slot holds the wrapped states under "<state>_<slot>".
  const auto dict = running.state_dict().toGenericDict();
  EXPECT_TRUE(dict.contains("max_value_0") && dict.contains("max_value_1"));
}

TEST(Running, SyncMergesEveryRanksWindow) {
  const auto data = batches(22);
  // Rank 0 feeds batches 0..4 (its window: 2, 3, 4), rank 1 batches 5..8 (6, 7, 8).
  const double expected = [&] {
    auto metric = auroc();
    for (const size_t i : {2, 3, 4, 6, 7, 8}) metric->update(data[i].preds, data[i].target);
    return metric->compute().item<double>();
  }();
  ThreadWorld world(2);
  std::vector<double> synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    Running running(auroc(), 3);
    for (size_t i = rank == 0 ? 0 : 5; i < (rank == 0 ? 5U : 9U); ++i) {
      running.update(data[i].preds, data[i].target);
    }
    synced[rank] = running.compute(strategy).item<double>();
  });
  EXPECT_NEAR(synced[0], expected, 1e-12);
  EXPECT_NEAR(synced[1], expected, 1e-12);
}

TEST(Running, StateDictCarriesTheWindow) {
  const auto data = batches(23);
  Running first(accuracy(), 4);
  for (size_t i = 0; i < 6; ++i) first.update(data[i].preds, data[i].target);
  Running second(accuracy(), 4);
  second.load_state_dict(first.state_dict());
  // The next update overwrites the same slot in both.
  first.update(data[6].preds, data[6].target);
  second.update(data[6].preds, data[6].target);
  EXPECT_EQ(second.compute().item<double>(), first.compute().item<double>());
  EXPECT_NEAR(second.compute().item<double>(), value_of(accuracy(), data, 3, 7), 1e-12);
}

TEST(MergeState, FoldsAnotherMetricsBatchesIn) {
  const auto data = batches(24);
  for (auto make : {accuracy, auroc}) {
    auto left = make(), right = make();
    for (size_t i = 0; i < 4; ++i) left->update(data[i].preds, data[i].target);
    for (size_t i = 4; i < 9; ++i) right->update(data[i].preds, data[i].target);
    left->merge_state(*right);
    EXPECT_NEAR(left->compute().item<double>(), value_of(make(), data, 0, 9), 1e-12);
    EXPECT_EQ(left->update_count(), 9);
  }
  MeanSquaredError mse;
  EXPECT_THAT([&] { mse.merge_state(*accuracy()); },
              Throws<MetricError>("MeanSquaredError: merge_state()", "Accuracy"));
  RunningMean running_mean;
  EXPECT_THAT([&] { running_mean.merge_state(RunningMean()); },
              Throws<MetricError>("RunningMean: merge_state()", "accumulated states"));
}

TEST(Running, BadInputIsAClearError) {
  EXPECT_THAT([] { Running(nullptr); }, Throws<ConfigError>("Running needs a metric", "null"));
  EXPECT_THAT([] { Running(accuracy(), 0); },
              Throws<ConfigError>("Running(Accuracy)", "window must be a positive integer, not 0"));
  EXPECT_THAT([] { Running(std::make_unique<RunningMean>()); },
              Throws<ConfigError>("Running(RunningMean)", "full_state_update"));
  Running running(accuracy());
  EXPECT_THAT([&] { running.compute(); }, Throws<MetricError>("Running", "before any update"));
  EXPECT_THAT(
      [&] {
        running.update(torch::zeros({2, 4}), torch::zeros({2}, torch::kLong));
      },
      Throws<MetricError>("Accuracy", "[2, 4]"));
}

}  // namespace
}  // namespace fulgur::metrics
