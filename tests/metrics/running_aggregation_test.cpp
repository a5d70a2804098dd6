// RunningMean and RunningSum: the value over the last `window` updates, against the same
// aggregate of those updates' values joined; forward's batch value; reset; NaN handling; a
// state dict that carries on in the right slot; two thread ranks; the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <mutex>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/running_mean.h"
#include "fulgur/metrics/running_sum.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using ::testing::ThrowsMessage;

struct Batch {
  torch::Tensor value, weight;
};

// Twelve batches of 1 to 4 values (some 0-dim), with weights of the same shape.
std::vector<Batch> batches(uint64_t seed) {
  torch::manual_seed(static_cast<int64_t>(seed));
  std::vector<Batch> out;
  for (int i = 0; i < 12; ++i) {
    const int64_t n = 1 + (i * 7) % 4;
    auto value = torch::randn({n}, torch::kDouble) * 10;
    auto weight = torch::rand({n}, torch::kDouble) + 0.1;
    if (n == 1 && i % 2 == 0) value = value.squeeze(), weight = weight.squeeze();
    out.push_back({value, weight});
  }
  return out;
}

// The weighted mean and the sum of batches [from, to), joined.
double mean_of(const std::vector<Batch>& b, size_t from, size_t to) {
  double weighted = 0, weights = 0;
  for (size_t i = from; i < to; ++i) {
    weighted += (b[i].value * b[i].weight).sum().item<double>();
    weights += b[i].weight.sum().item<double>();
  }
  return weighted / weights;
}

double sum_of(const std::vector<Batch>& b, size_t from, size_t to) {
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += b[i].value.sum().item<double>();
  return sum;
}

TEST(RunningAggregation, TheLastWindowOfUpdatesCounts) {
  const auto b = batches(11);
  RunningMean mean({.window = 3});
  RunningSum sum({.window = 4});
  for (size_t i = 0; i < b.size(); ++i) {
    mean.update(b[i].value, b[i].weight);
    sum.update(b[i].value);
    const size_t k = i + 1;
    EXPECT_NEAR(mean.compute().item<double>(), mean_of(b, k > 3 ? k - 3 : 0, k), 1e-12) << i;
    EXPECT_NEAR(sum.compute().item<double>(), sum_of(b, k > 4 ? k - 4 : 0, k), 1e-12) << i;
  }
  // Not the mean of everything: the window dropped the first nine batches.
  EXPECT_GT(std::abs(mean.compute().item<double>() - mean_of(b, 0, 12)), 1e-3);
  EXPECT_EQ(mean.window(), 3);
  EXPECT_EQ(RunningMean().window(), 5);  // torchmetrics' default
}

TEST(RunningAggregation, ForwardReturnsTheBatchAndFillsTheWindow) {
  const auto b = batches(12);
  RunningMean mean({.window = 2});
  for (size_t i = 0; i < 6; ++i) {
    if (i % 3 == 1) {
      mean.update(b[i].value, b[i].weight);
    } else {
      const double batch = mean.forward(b[i].value, b[i].weight).item<double>();
      EXPECT_NEAR(batch, mean_of(b, i, i + 1), 1e-12) << i;
    }
    EXPECT_EQ(mean.update_count(), static_cast<int64_t>(i + 1));
    EXPECT_NEAR(mean.compute().item<double>(), mean_of(b, i == 0 ? 0 : i - 1, i + 1), 1e-12) << i;
  }
  mean.reset();
  EXPECT_THROW(mean.compute(), MetricError);
  mean.update(b[7].value, b[7].weight);
  EXPECT_NEAR(mean.compute().item<double>(), mean_of(b, 7, 8), 1e-12);
}

TEST(RunningAggregation, AStateDictCarriesOnInTheRightSlot) {
  const auto b = batches(13);
  RunningSum first({.window = 3});
  for (size_t i = 0; i < 5; ++i) first.update(b[i].value);
  RunningSum second({.window = 3});
  second.load_state_dict(first.state_dict());
  EXPECT_NEAR(second.compute().item<double>(), sum_of(b, 2, 5), 1e-12);
  second.update(b[5].value);  // replaces batch 2, the oldest
  EXPECT_NEAR(second.compute().item<double>(), sum_of(b, 3, 6), 1e-12);
}

TEST(RunningAggregation, NanValuesFollowTheStrategy) {
  const double nan = std::nan("");
  RunningMean ignore({.window = 2, .nan_strategy = "ignore"});
  RunningSum replace({.window = 2, .nan_strategy = 5.0});
  for (auto value : {torch::tensor({1.0, nan}), torch::tensor({nan, nan}), torch::tensor({3.0})}) {
    ignore.update(value);
    replace.update(value);
  }
  // The window holds the last two: {NaN, NaN} (nothing counts) and {3}.
  EXPECT_EQ(ignore.compute().item<double>(), 3.0);
  EXPECT_EQ(replace.compute().item<double>(), 13.0);
  RunningMean all_left_out({.window = 1, .nan_strategy = "ignore"});
  all_left_out.update(torch::tensor({nan}));
  EXPECT_TRUE(std::isnan(all_left_out.compute().item<double>()));
}

TEST(RunningAggregation, BadWindowsAreConfigErrors) {
  EXPECT_THAT([] { RunningMean({.window = 0}); },
              ThrowsMessage<ConfigError>(
                  "RunningMean(window=0) is not valid; the window must be at least 1"));
  EXPECT_THAT([] { RunningSum({.window = -3}); },
              ThrowsMessage<ConfigError>(
                  "RunningSum(window=-3) is not valid; the window must be at least 1"));
  EXPECT_THROW(RunningSum({.nan_strategy = "drop"}), ConfigError);
}

TEST(RunningAggregation, SyncedValuesCoverEveryRanksLastWindow) {
  const auto b = batches(14);
  testing::ThreadWorld world(2);
  std::mutex mutex;
  std::vector<double> synced(2), own(2);
  world.run([&](int rank) {
    testing::ThreadRank strategy(world, rank);
    RunningMean mean({.window = 3});
    for (size_t i = 0; i < 5; ++i) {
      const auto& batch = b[static_cast<size_t>(rank) * 6 + i];
      mean.update(batch.value, batch.weight);
    }
    const double all = mean.compute(strategy).item<double>();
    std::lock_guard<std::mutex> lock(mutex);
    synced[rank] = all;
    own[rank] = mean.compute().item<double>();
  });
  // Rank 0 had batches 0-4, rank 1 batches 6-10: the windows hold 2-4 and 8-10.
  std::vector<Batch> windows(b.begin() + 2, b.begin() + 5);
  windows.insert(windows.end(), b.begin() + 8, b.begin() + 11);
  const double expected = mean_of(windows, 0, windows.size());
  EXPECT_NEAR(synced[0], expected, 1e-12);
  EXPECT_NEAR(synced[1], expected, 1e-12);
  EXPECT_NEAR(own[0], mean_of(b, 2, 5), 1e-12);
  EXPECT_NEAR(own[1], mean_of(b, 8, 11), 1e-12);
}

}  // namespace
}  // namespace fulgur::metrics
