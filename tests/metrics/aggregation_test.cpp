// MeanMetric (weighted), SumMetric, MaxMetric, MinMetric, CatMetric and their nan_strategy
// choices; CatMetric across two thread ranks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/cat_metric.h"
#include "fulgur/metrics/max_metric.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/min_metric.h"
#include "fulgur/metrics/sum_metric.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const double kNaN = std::nan("");

double value(Metric& m) { return m.compute().item<double>(); }

TEST(Aggregation, RunningValuesOverBatches) {
  MeanMetric mean;
  SumMetric sum;
  MaxMetric max;
  MinMetric min;
  for (auto* m : std::initializer_list<Metric*>{&mean, &sum, &max, &min}) {
    m->update(torch::tensor({1.0, 2.0, 3.0}));
    m->update(torch::tensor(10.0f));  // float32 and 0-dim values count alike
    m->update(torch::tensor({{-4.0, 0.5}}));
    EXPECT_EQ(m->update_count(), 3);
    EXPECT_TRUE(m->is_scalar());
    EXPECT_EQ(m->compute().scalar_type(), torch::kDouble);
  }
  EXPECT_DOUBLE_EQ(value(mean), 12.5 / 6);
  EXPECT_DOUBLE_EQ(value(sum), 12.5);
  EXPECT_DOUBLE_EQ(value(max), 10.0);
  EXPECT_DOUBLE_EQ(value(min), -4.0);
}

TEST(Aggregation, MeanIsWeighted) {
  MeanMetric mean;
  mean.update(torch::tensor({1.0, 3.0}), torch::tensor({1.0, 3.0}));  // 10 / 4
  mean.update(torch::tensor(5.0), torch::tensor(4.0));                // + 20 / 4
  EXPECT_DOUBLE_EQ(value(mean), 30.0 / 8);
  // A scalar weight broadcasts; one that cannot is an error.
  mean.update(torch::tensor({0.0, 0.0}), torch::tensor(2.0));
  EXPECT_DOUBLE_EQ(value(mean), 30.0 / 12);
  EXPECT_THAT([&] { mean.update(torch::rand({3}), torch::rand({2})); },
              ThrowsMessage<MetricError>(HasSubstr("MeanMetric: weight of shape [2]")));
}

TEST(Aggregation, NanStrategies) {
  const auto with_nan = torch::tensor({1.0, kNaN, 3.0});
  MeanMetric warn;  // default: left out, counted, warned about at compute()
  warn.update(with_nan);
  EXPECT_DOUBLE_EQ(value(warn), 2.0);
  MaxMetric ignore({.nan_strategy = "ignore"});
  ignore.update(with_nan);
  EXPECT_DOUBLE_EQ(value(ignore), 3.0);
  SumMetric replace({.nan_strategy = 10.0});
  replace.update(with_nan);
  EXPECT_DOUBLE_EQ(value(replace), 14.0);
  MinMetric disable({.nan_strategy = "disable"});
  disable.update(with_nan);
  EXPECT_TRUE(std::isnan(value(disable)));
  SumMetric error({.nan_strategy = "error"});
  EXPECT_THAT([&] { error.update(with_nan); },
              ThrowsMessage<MetricError>(HasSubstr("SumMetric: the value contains NaN")));
  EXPECT_THROW(MeanMetric({.nan_strategy = "drop"}), ConfigError);
  // Only left-out values: a max of nothing.
  MaxMetric empty;
  empty.update(torch::tensor({kNaN}));
  EXPECT_EQ(value(empty), -std::numeric_limits<double>::infinity());
}

TEST(CatMetric, JoinsEveryValueInOrder) {
  CatMetric cat;
  EXPECT_FALSE(cat.is_scalar());
  cat.update(torch::tensor({{1.0, 2.0}, {3.0, 4.0}}));
  cat.update(torch::tensor(5.0f));
  cat.update(torch::zeros({0}));
  EXPECT_TRUE(
      torch::equal(cat.compute(), torch::tensor({1.0, 2.0, 3.0, 4.0, 5.0}, torch::kDouble)));
  // NaN: left out (warn, ignore) at compute(), replaced, kept (disable) or refused (error).
  const auto with_nan = torch::tensor({1.0, kNaN, 3.0});
  CatMetric warn, replace({.nan_strategy = -1.0}), disable({.nan_strategy = "disable"}),
      error({.nan_strategy = "error"});
  warn.update(with_nan);
  EXPECT_TRUE(torch::equal(warn.compute(), torch::tensor({1.0, 3.0}, torch::kDouble)));
  replace.update(with_nan);
  EXPECT_TRUE(torch::equal(replace.compute(), torch::tensor({1.0, -1.0, 3.0}, torch::kDouble)));
  disable.update(with_nan);
  EXPECT_EQ(disable.compute().size(0), 3);
  EXPECT_TRUE(std::isnan(disable.compute()[1].item<double>()));
  EXPECT_THAT([&] { error.update(with_nan); },
              ThrowsMessage<MetricError>(HasSubstr("CatMetric: the value contains NaN")));
}

TEST(CatMetric, SyncedValuesAreEveryRanksInRankOrder) {
  testing::ThreadWorld world(2);
  std::mutex mutex;
  std::vector<torch::Tensor> synced(2);
  world.run([&](int rank) {
    testing::ThreadRank strategy(world, rank);
    CatMetric cat;
    if (rank == 0) {
      cat.update(torch::tensor({1.0, 2.0, 3.0}));
    } else {
      cat.update(torch::tensor({kNaN, 7.0}));  // fewer values; the NaN is left out
    }
    auto all = cat.compute(strategy);
    std::lock_guard<std::mutex> lock(mutex);
    synced[rank] = all;
  });
  for (const auto& s : synced) {
    EXPECT_TRUE(torch::equal(s, torch::tensor({1.0, 2.0, 3.0, 7.0}, torch::kDouble))) << s;
  }
}

}  // namespace
}  // namespace fulgur::metrics
