// BootStrapper: the copies' samples drawn as torchmetrics draws them
// (Poisson(1) counts per row or a multinomial draw, from torch's default
// generator), checked by replaying the draws in python3-torch from the same
// seed; the statistics; forward; sync over two thread ranks; a state dict; the
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/boot_strapper.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::expect_reference;
using fulgur::testing::py;
using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;

BootStrapper::Factory mse() {
  return [] { return std::make_unique<MeanSquaredError>(); };
}

// Replays the draws: for each batch, for each copy, torchmetrics' sampler.
const char *kBootstrap =
    "import torch\n"
    "def boot(P, T, copies, strategy, cuts, seed):\n"
    "    torch.manual_seed(seed)\n"
    "    rows = [[] for _ in range(copies)]\n"
    "    for a, b in zip(cuts, cuts[1:]):\n"
    "        n = b - a\n"
    "        for k in range(copies):\n"
    "            if strategy == 'poisson':\n"
    "                times = "
    "torch.distributions.Poisson(1).sample((n,)).long()\n"
    "                index = torch.arange(n).repeat_interleave(times)\n"
    "            else:\n"
    "                index = torch.multinomial(torch.ones(n), n, "
    "replacement=True)\n"
    "            rows[k] += list(index.numpy() + a)\n"
    "    return np.array([((P[r] - T[r]) ** 2).mean() for r in rows])\n";

TEST(BootStrapper, DrawsAsTorchmetricsFromTheSameSeed) {
  torch::manual_seed(51);
  const auto target = torch::randn({40}, torch::kDouble);
  const auto preds = target + 0.5 * torch::randn({40}, torch::kDouble);
  const std::vector<int64_t> cuts{0, 13, 21, 40};
  std::vector<fulgur::testing::Check> checks;
  for (const std::string strategy : {"poisson", "multinomial"}) {
    BootStrapper boot(mse(), {.num_bootstraps = 6,
                              .quantile = 0.25,
                              .raw = true,
                              .sampling_strategy = strategy});
    torch::manual_seed(7);
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      boot.update(preds.slice(0, cuts[i], cuts[i + 1]),
                  target.slice(0, cuts[i], cuts[i + 1]));
    }
    const auto values = boot.compute();
    ASSERT_EQ(values.size(), 4u);
    const std::string raw =
        "boot(P, T, 6, '" + strategy + "', [0, 13, 21, 40], 7)";
    checks.push_back({strategy + " raw", values.at("raw"), raw});
    checks.push_back({strategy + " mean", values.at("mean"), raw + ".mean()"});
    checks.push_back(
        {strategy + " std", values.at("std"), raw + ".std(ddof=1)"});
    checks.push_back({strategy + " quantile", values.at("quantile"),
                      "np.quantile(" + raw + ", 0.25)"});
  }
  expect_reference(std::string(kBootstrap) + "P = np.array(" + py(preds) +
                       ")\nT = np.array(" + py(target) + ")\n",
                   checks, 1e-12);
}

TEST(BootStrapper, ForwardSyncAndStateDict) {
  // Every row of rank 0 is 1 and of rank 1 is 3: whatever the draws, each
  // copy's mean is 1 on rank 0, 3 on rank 1, and 2 over both (a multinomial
  // draw keeps each batch's size).
  ThreadWorld world(2);
  std::mutex mutex;
  std::vector<std::map<std::string, at::Tensor>> local(2), synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    BootStrapper boot(
        [] { return std::make_unique<MeanMetric>(); },
        {.num_bootstraps = 4, .raw = true, .sampling_strategy = "multinomial"});
    boot.update(torch::full({10}, rank == 0 ? 1.0 : 3.0));
    auto own = boot.compute();
    auto all = boot.compute(strategy);
    std::lock_guard<std::mutex> lock(mutex);
    local[rank] = own;
    synced[rank] = all;
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_TRUE(torch::allclose(
        local[rank].at("raw"),
        torch::full({4}, rank == 0 ? 1.0 : 3.0, torch::kDouble)));
    EXPECT_TRUE(torch::allclose(synced[rank].at("raw"),
                                torch::full({4}, 2.0, torch::kDouble)));
    EXPECT_EQ(synced[rank].at("mean").item<double>(), 2.0);
    EXPECT_EQ(synced[rank].at("std").item<double>(), 0.0);
  }

  torch::manual_seed(52);
  BootStrapper boot(mse(), {.num_bootstraps = 3, .std = false});
  const auto preds = torch::randn({12}), target = torch::randn({12});
  const auto batch = boot.forward(preds, target);
  EXPECT_EQ(batch.size(), 1u); // mean only
  double copies_mean = 0;
  for (int64_t k = 0; k < 3; ++k)
    copies_mean += boot.at(k).forward_value().item<double>() / 3;
  EXPECT_NEAR(batch.at("mean").item<double>(), copies_mean, 1e-12);
  EXPECT_NEAR(boot.compute().at("mean").item<double>(), copies_mean, 1e-12);

  BootStrapper loaded(mse(), {.num_bootstraps = 3, .std = false});
  loaded.load_state_dict(boot.state_dict());
  EXPECT_EQ(loaded.compute().at("mean").item<double>(),
            boot.compute().at("mean").item<double>());
  BootStrapper fewer(mse(), {.num_bootstraps = 2});
  EXPECT_THAT(
      [&] { fewer.load_state_dict(boot.state_dict()); },
      Throws<CheckpointError>(
          "BootStrapper state in the checkpoint has 3 copies", "this one 2"));
  boot.reset();
  EXPECT_THROW(boot.compute(), MetricError);
}

TEST(BootStrapper, Errors) {
  EXPECT_THAT([] { BootStrapper(nullptr); },
              Throws<ConfigError>("BootStrapper", "needs a factory"));
  EXPECT_THAT([] { BootStrapper([] { return std::unique_ptr<Metric>(); }); },
              Throws<ConfigError>("BootStrapper", "returned a null metric"));
  EXPECT_THAT(
      [] { BootStrapper(mse(), {.num_bootstraps = 0}); },
      Throws<ConfigError>("num_bootstraps must be at least 1", "not 0"));
  EXPECT_THAT([] { BootStrapper(mse(), {.quantile = 1.5}); },
              Throws<ConfigError>("quantile must be in [0, 1]", "not 1.5"));
  EXPECT_THAT([] { BootStrapper(mse(), {.sampling_strategy = "bayes"}); },
              Throws<ConfigError>("BootStrapper(sampling_strategy=\"bayes\")",
                                  "\"poisson\" or \"multinomial\""));
  BootStrapper boot(mse());
  EXPECT_THAT(
      [&] { boot.update(torch::tensor(1.0), torch::tensor(1.0)); },
      Throws<MetricError>("BootStrapper", "resamples along dimension 0"));
  EXPECT_THAT([&] { boot.at(10); },
              Throws<MetricError>("BootStrapper has no copy 10", "it has 10"));
}

} // namespace
} // namespace fulgur::metrics
