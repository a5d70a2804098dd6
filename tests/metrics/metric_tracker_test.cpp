// MetricTracker: a metric's value per step (as after each validation epoch), the best step by
// maximize or by the metric's own direction, per-class values stacked, synced across thread
// ranks, saved and loaded; then the misuse errors.
#include "fulgur/metrics/metric_tracker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/sum_metric.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;
using fulgur::testing::values;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

MetricTracker::Factory accuracy(const std::string& average = "micro") {
  return [average] {
    return std::make_unique<Accuracy>(
        ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = average});
  };
}

// Labels right with chance `share` each, in two batches.
void feed_epoch(MetricTracker& tracker, double share, int seed) {
  torch::manual_seed(seed);
  const auto target = torch::randint(0, 3, {90}, torch::kLong);
  const auto wrong = (target + torch::randint(1, 3, {90}, torch::kLong)) % 3;
  const auto preds = torch::where(torch::rand({90}) < share, target, wrong);
  tracker.update(preds.slice(0, 0, 50), target.slice(0, 0, 50));
  tracker.update(preds.slice(0, 50), target.slice(0, 50));
}

double accuracy_of(double share, int seed) {
  torch::manual_seed(seed);
  const auto target = torch::randint(0, 3, {90}, torch::kLong);
  const auto wrong = (target + torch::randint(1, 3, {90}, torch::kLong)) % 3;
  const auto preds = torch::where(torch::rand({90}) < share, target, wrong);
  return preds.eq(target).to(torch::kDouble).mean().item<double>();
}

TEST(MetricTracker, EveryStepsValueAndTheBest) {
  const std::vector<double> shares{0.3, 0.8, 0.6, 0.5};
  MetricTracker tracker(accuracy());
  std::vector<double> expected;
  for (size_t epoch = 0; epoch < shares.size(); ++epoch) {
    tracker.increment();
    feed_epoch(tracker, shares[epoch], 40 + static_cast<int>(epoch));
    expected.push_back(accuracy_of(shares[epoch], 40 + static_cast<int>(epoch)));
    EXPECT_DOUBLE_EQ(tracker.compute().item<double>(), expected.back());
  }
  EXPECT_EQ(tracker.n_steps(), 4);
  const auto all = tracker.compute_all();
  EXPECT_EQ(all.sizes(), (std::vector<int64_t>{4}));
  EXPECT_THAT(values(all), ElementsAreArray(expected));
  EXPECT_DOUBLE_EQ(tracker.at(2).compute().item<double>(), expected[2]);
  // Accuracy's best is its largest: step 1 (share 0.8).
  const auto best = tracker.best_metric();
  EXPECT_EQ(best.step, 1);
  EXPECT_DOUBLE_EQ(best.value, expected[1]);
  EXPECT_TRUE(tracker.maximize());

  // maximize = false: the smallest, step 0.
  MetricTracker lowest(accuracy(), {.maximize = false});
  for (size_t epoch = 0; epoch < shares.size(); ++epoch) {
    lowest.increment();
    feed_epoch(lowest, shares[epoch], 40 + static_cast<int>(epoch));
  }
  EXPECT_EQ(lowest.best_metric().step, 0);
  EXPECT_DOUBLE_EQ(lowest.best_metric().value, expected[0]);

  // reset() clears the latest step only; reset_all() every step.
  tracker.reset();
  EXPECT_THAT([&] { tracker.compute_all(); }, Throws<MetricError>("Accuracy", "before any update"));
  EXPECT_DOUBLE_EQ(tracker.at(1).compute().item<double>(), expected[1]);
  tracker.reset_all();
  EXPECT_THAT([&] { tracker.at(0).compute(); },
              Throws<MetricError>("Accuracy", "before any update"));
}

TEST(MetricTracker, MaximizeNulloptFollowsTheMetricsDirection) {
  // MeanSquaredError is lower-is-better: its best is the smallest error.
  MetricTracker tracker([] { return std::make_unique<MeanSquaredError>(); },
                        {.maximize = std::nullopt});
  EXPECT_FALSE(tracker.maximize());
  const auto target = torch::zeros({4}, torch::kDouble);
  for (double error : {3.0, 1.0, 2.0, 1.0}) {
    tracker.increment();
    EXPECT_DOUBLE_EQ(
        tracker.forward(torch::full({4}, error, torch::kDouble), target).item<double>(),
        error * error);
  }
  EXPECT_THAT(values(tracker.compute_all()), ElementsAre(9.0, 1.0, 4.0, 1.0));
  // Ties: the first such step.
  EXPECT_EQ(tracker.best_metric().step, 1);
  EXPECT_DOUBLE_EQ(tracker.best_metric().value, 1.0);

  EXPECT_THAT(
      [] {
        MetricTracker([] { return std::make_unique<MeanMetric>(); }, {.maximize = std::nullopt});
      },
      Throws<ConfigError>("MetricTracker(maximize=None)", "MeanMetric has no higher_is_better"));
}

TEST(MetricTracker, PerClassValuesStackAndHaveNoBest) {
  MetricTracker tracker(accuracy("none"));
  const auto target = torch::tensor({0, 1, 2, 2}, torch::kLong);
  tracker.increment();
  tracker.update(torch::tensor({0, 1, 2, 0}, torch::kLong), target);
  tracker.increment();
  tracker.update(torch::tensor({0, 0, 2, 2}, torch::kLong), target);
  const auto all = tracker.compute_all();
  EXPECT_EQ(all.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(values(all), ElementsAre(1.0, 1.0, 0.5, 1.0, 0.0, 1.0));
  EXPECT_THAT([&] { tracker.best_metric(); },
              Throws<MetricError>("MetricTracker: Accuracy", "best_metric() is not defined"));
}

TEST(MetricTracker, ComputeAllWithAStrategyIsEveryRanksValue) {
  ThreadWorld world(2);
  std::vector<std::vector<double>> synced(2), local(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    MetricTracker tracker([] { return std::make_unique<SumMetric>(); });
    for (int step = 0; step < 3; ++step) {
      tracker.increment();
      tracker.update(torch::tensor(static_cast<double>((rank + 1) * (step + 1))));
    }
    synced[rank] = values(tracker.compute_all(strategy));
    local[rank] = values(tracker.compute_all());
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_THAT(synced[rank], ElementsAre(3.0, 6.0, 9.0));
    EXPECT_THAT(local[rank], ElementsAre(rank + 1.0, 2 * (rank + 1.0), 3 * (rank + 1.0)));
  }
}

TEST(MetricTracker, StateDictRoundTripsEveryStep) {
  MetricTracker tracker(accuracy());
  for (int epoch = 0; epoch < 3; ++epoch) {
    tracker.increment();
    feed_epoch(tracker, 0.2 + 0.3 * epoch, 50 + epoch);
  }
  const auto saved = tracker.state_dict();
  MetricTracker restored(accuracy());
  restored.load_state_dict(saved);
  EXPECT_EQ(restored.n_steps(), 3);
  EXPECT_TRUE(torch::equal(restored.compute_all(), tracker.compute_all()));
  EXPECT_EQ(restored.best_metric().step, 2);
  // The latest step goes on accumulating.
  feed_epoch(restored, 0.0, 60);
  feed_epoch(tracker, 0.0, 60);
  EXPECT_DOUBLE_EQ(restored.compute().item<double>(), tracker.compute().item<double>());

  EXPECT_THAT([&] { restored.load_state_dict(c10::IValue(3)); },
              Throws<CheckpointError>("MetricTracker state", "not a list of steps"));
  MetricTracker other([] { return std::make_unique<MeanSquaredError>(); });
  other.increment();
  EXPECT_THAT([&] { other.load_state_dict(saved); },
              Throws<CheckpointError>("MeanSquaredError metric state", "does not have"));
  EXPECT_EQ(other.n_steps(), 1);  // a state that does not fit changes nothing
}

TEST(MetricTracker, MisuseIsAClearError) {
  MetricTracker tracker(accuracy());
  EXPECT_THAT([&] { tracker.update(torch::tensor({0}), torch::tensor({0})); },
              Throws<MetricError>("MetricTracker: update()", "before increment()"));
  EXPECT_THAT([&] { tracker.compute(); },
              Throws<MetricError>("MetricTracker: compute()", "before increment()"));
  EXPECT_THAT([&] { tracker.best_metric(); },
              Throws<MetricError>("MetricTracker: best_metric()", "before increment()"));
  tracker.increment();
  EXPECT_THAT([&] { tracker.at(1); }, Throws<MetricError>("MetricTracker has 1 steps", "step 1"));
  EXPECT_THAT([] { MetricTracker(nullptr); }, Throws<ConfigError>("MetricTracker", "factory"));
  EXPECT_THAT([] { MetricTracker([] { return std::unique_ptr<Metric>(); }); },
              Throws<ConfigError>("MetricTracker", "returned no metric"));
}

}  // namespace
}  // namespace fulgur::metrics
