// MetricCollection: compute() keys with prefix/postfix, values equal to the metrics' own,
// reset, names that clash, sync across a world of threads, and state round trips.
#include "fulgur/metrics/metric_collection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/f1_score.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

MetricCollection make(MetricCollectionOptions options = {}) {
  return MetricCollection({{"acc", std::make_shared<Accuracy>(ClassificationOptions{
                                       .task = "multiclass", .num_classes = 3})},
                           {"f1", std::make_shared<F1Score>(ClassificationOptions{
                                      .task = "multiclass", .num_classes = 3, .average = "macro"})},
                           {"confmat", std::make_shared<ConfusionMatrix>(ConfusionMatrixOptions{
                                           .task = "multiclass", .num_classes = 3})}},
                          options);
}

TEST(MetricCollection, ComputesEveryMetricUnderItsKey) {
  torch::manual_seed(41);
  const auto scores = torch::randn({40, 3});
  const auto labels = torch::randint(0, 3, {40}, torch::kLong);
  auto metrics = make({.prefix = "val_"});
  EXPECT_THAT(metrics.names(), ElementsAre("acc", "f1", "confmat"));
  metrics.update(scores, labels);
  F1Score alone({.task = "multiclass", .num_classes = 3, .average = "macro"});
  alone.update(scores, labels);
  const auto values = metrics.compute();
  ASSERT_EQ(values.size(), 3u);
  EXPECT_DOUBLE_EQ(values.at("val_f1").item<double>(), alone.compute().item<double>());
  EXPECT_DOUBLE_EQ(values.at("val_acc").item<double>(),
                   scores.argmax(1).eq(labels).to(torch::kDouble).mean().item<double>());
  EXPECT_EQ(values.at("val_confmat").sum().item<double>(), 40);
  EXPECT_EQ(metrics.at("acc").update_count(), 1);
  metrics.reset();
  EXPECT_EQ(metrics.at("confmat").update_count(), 0);
}

TEST(MetricCollection, NamesMustBeUniqueAndKnown) {
  auto metrics = make();
  EXPECT_THAT(
      [&] {
        metrics.add("acc", std::make_shared<Accuracy>(ClassificationOptions{.task = "binary"}));
      },
      ThrowsMessage<ConfigError>(HasSubstr("\"acc\" is used twice")));
  EXPECT_THAT([&] { metrics.at("auc"); },
              ThrowsMessage<ConfigError>(HasSubstr("acc, f1, confmat")));
  EXPECT_THROW(metrics.add("x", nullptr), ConfigError);
}

TEST(MetricCollection, SyncsAcrossRanksAndRoundTripsItsState) {
  torch::manual_seed(42);
  const auto scores = torch::randn({50, 3});
  const auto labels = torch::randint(0, 3, {50}, torch::kLong);
  auto whole = make();
  whole.update(scores, labels);
  const auto expected = whole.compute();
  fulgur::testing::ThreadWorld world(2);
  std::vector<std::map<std::string, at::Tensor>> synced(2);
  world.run([&](int rank) {
    fulgur::testing::ThreadRank strategy(world, rank);
    auto metrics = make();
    metrics.update(rank == 0 ? scores.slice(0, 0, 35) : scores.slice(0, 35),
                   rank == 0 ? labels.slice(0, 0, 35) : labels.slice(0, 35));
    synced[rank] = metrics.compute(strategy);
  });
  for (const auto& values : synced) {
    for (const auto& [key, value] : expected) {
      EXPECT_TRUE(torch::allclose(values.at(key), value)) << key;
    }
  }
  auto restored = make();
  restored.load_state_dict(torch::pickle_load(torch::pickle_save(whole.state_dict())));
  EXPECT_TRUE(torch::equal(restored.compute().at("confmat"), expected.at("confmat")));
  MetricCollection smaller(
      {{"acc", std::make_shared<Accuracy>(ClassificationOptions{.task = "binary"})}});
  EXPECT_THROW(smaller.load_state_dict(whole.state_dict()), CheckpointError);
}

}  // namespace
}  // namespace fulgur::metrics
