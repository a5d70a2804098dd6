#include "fulgur/data/data_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;
using Indices = std::vector<int64_t>;

// Sample i has data i and target 1000 + i, so a batch reveals which indices it holds.
std::shared_ptr<const Dataset> indexed_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(torch::arange(n), torch::arange(n) + 1000);
}

Indices to_indices(const Batch& batch) {
  auto data = batch.data.contiguous();
  return Indices(data.data_ptr<int64_t>(), data.data_ptr<int64_t>() + data.numel());
}

// Every batch of one pass, as index lists; also checks that targets travel with their samples.
std::vector<Indices> run_pass(DataLoader& loader) {
  std::vector<Indices> batches;
  for (auto& batch : loader) {
    EXPECT_TRUE(torch::equal(batch.target, batch.data + 1000));
    batches.push_back(to_indices(batch));
  }
  return batches;
}

Indices flatten(const std::vector<Indices>& batches) {
  Indices all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  return all;
}

// Counts get_batch calls and can be slow or fail at one sample, to observe the workers.
class ProbeDataset : public Dataset {
 public:
  ProbeDataset(int64_t n, std::chrono::milliseconds delay = {}, int64_t fail_at = -1)
      : n_(n), delay_(delay), fail_at_(fail_at) {}
  int64_t size() const override { return n_; }
  Batch get_batch(const Indices& indices) const override {
    calls_.fetch_add(1);
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    for (int64_t i : indices) {
      if (i == fail_at_)
        throw std::runtime_error("probe: sample " + std::to_string(i) + " is broken");
    }
    auto data = torch::tensor(indices, torch::kLong);
    return {data, data + 1000};
  }
  int calls() const { return calls_.load(); }

 private:
  int64_t n_;
  std::chrono::milliseconds delay_;
  int64_t fail_at_;
  mutable std::atomic<int> calls_{0};
};

TEST(DataLoaderTest, LengthRoundsUpOrDropsTheLastPartialBatch) {
  DataLoader loader(indexed_dataset(10), {.batch_size = 3});
  EXPECT_EQ(loader.size(), 4);
  EXPECT_EQ(loader.dataset_size(), 10);
  auto batches = run_pass(loader);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[3], (Indices{9}));

  DataLoader dropping(indexed_dataset(10), {.batch_size = 3, .drop_last = true});
  EXPECT_EQ(dropping.size(), 3);
  auto kept = run_pass(dropping);
  ASSERT_EQ(kept.size(), 3u);
  for (const auto& b : kept) EXPECT_EQ(b.size(), 3u);

  DataLoader exact(indexed_dataset(9), {.batch_size = 3, .drop_last = true});
  EXPECT_EQ(exact.size(), 3);
  DataLoader exact_keep(indexed_dataset(9), {.batch_size = 3});
  EXPECT_EQ(exact_keep.size(), 3);
  DataLoader too_small(indexed_dataset(2), {.batch_size = 3, .drop_last = true});
  EXPECT_EQ(too_small.size(), 0);
  EXPECT_TRUE(too_small.begin() == too_small.end());
}

TEST(DataLoaderTest, EmptyDatasetHasNoBatches) {
  DataLoader loader(indexed_dataset(0), {.batch_size = 4, .num_workers = 2});
  EXPECT_EQ(loader.size(), 0);
  EXPECT_TRUE(run_pass(loader).empty());
}

TEST(DataLoaderTest, WithoutShuffleTheOrderIsSequential) {
  DataLoader loader(indexed_dataset(7), {.batch_size = 2});
  EXPECT_EQ(run_pass(loader), (std::vector<Indices>{{0, 1}, {2, 3}, {4, 5}, {6}}));
  loader.set_epoch(5);
  EXPECT_EQ(run_pass(loader), (std::vector<Indices>{{0, 1}, {2, 3}, {4, 5}, {6}}));
  EXPECT_EQ(loader.batch_indices(3), (Indices{6}));
}

TEST(DataLoaderTest, ShuffleVisitsEveryIndexExactlyOncePerEpoch) {
  DataLoader loader(indexed_dataset(103), {.batch_size = 8, .shuffle = true, .seed = 7});
  Indices expected(103);
  std::iota(expected.begin(), expected.end(), 0);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    loader.set_epoch(epoch);
    auto all = flatten(run_pass(loader));
    EXPECT_NE(all, expected) << "epoch " << epoch << " was not shuffled";
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, expected) << "epoch " << epoch;
  }
  // With drop_last the kept samples are still distinct.
  DataLoader dropping(indexed_dataset(103),
                      {.batch_size = 8, .shuffle = true, .seed = 7, .drop_last = true});
  auto kept = flatten(run_pass(dropping));
  EXPECT_EQ(kept.size(), 96u);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end());
}

TEST(DataLoaderTest, ShuffledOrderDependsOnlyOnSeedAndEpochNotOnWorkers) {
  std::vector<std::vector<Indices>> runs;
  for (int workers : {0, 1, 3}) {
    for (int prefetch : {1, 2}) {
      DataLoader loader(indexed_dataset(50), {.batch_size = 4,
                                              .shuffle = true,
                                              .seed = 42,
                                              .num_workers = workers,
                                              .prefetch_factor = prefetch});
      loader.set_epoch(3);
      runs.push_back(run_pass(loader));
      // batch_indices agrees with what the pass yielded.
      for (int64_t k = 0; k < loader.size(); ++k)
        EXPECT_EQ(loader.batch_indices(k), runs.back()[static_cast<size_t>(k)]);
    }
  }
  ASSERT_EQ(runs[0].size(), 13u);
  for (size_t i = 1; i < runs.size(); ++i) EXPECT_EQ(runs[i], runs[0]) << "run " << i;

  // Epoch 3 reached directly equals epoch 3 reached after epochs 0..2.
  DataLoader walker(indexed_dataset(50), {.batch_size = 4, .shuffle = true, .seed = 42});
  for (int64_t epoch = 0; epoch <= 3; ++epoch) {
    walker.set_epoch(epoch);
    auto batches = run_pass(walker);
    if (epoch == 3) {
      EXPECT_EQ(batches, runs[0]);
    }
  }
}

TEST(DataLoaderTest, DifferentEpochsAndSeedsGiveDifferentOrders) {
  DataLoader loader(indexed_dataset(64), {.batch_size = 64, .shuffle = true, .seed = 1});
  auto epoch0 = run_pass(loader);
  loader.set_epoch(1);
  auto epoch1 = run_pass(loader);
  EXPECT_NE(epoch0, epoch1);
  loader.set_epoch(0);
  EXPECT_EQ(run_pass(loader), epoch0);

  DataLoader other_seed(indexed_dataset(64), {.batch_size = 64, .shuffle = true, .seed = 2});
  EXPECT_NE(run_pass(other_seed), epoch0);
  // Changing the seed through mutable_options() takes effect on the next pass.
  other_seed.mutable_options().seed = 1;
  EXPECT_EQ(run_pass(other_seed), epoch0);
}

TEST(DataLoaderTest, PositionCountsYieldedBatchesAndResetsAtTheEndOfTheEpoch) {
  DataLoader loader(indexed_dataset(10), {.batch_size = 3, .shuffle = true});
  loader.set_epoch(2);
  int64_t seen = 0;
  for (auto& batch : loader) {
    (void)batch;
    ++seen;
    EXPECT_EQ(loader.state(), (DataLoaderState{2, seen}));
  }
  EXPECT_EQ(seen, 4);
  EXPECT_EQ(loader.state(), (DataLoaderState{2, 0}));
}

TEST(DataLoaderTest, SetEpochResetsPositionOnlyWhenTheEpochChanges) {
  DataLoader loader(indexed_dataset(10), {.batch_size = 2});
  loader.load_state({.epoch = 1, .position = 3});
  loader.set_epoch(1);
  EXPECT_EQ(loader.state(), (DataLoaderState{1, 3}));
  loader.set_epoch(2);
  EXPECT_EQ(loader.state(), (DataLoaderState{2, 0}));
}

TEST(DataLoaderTest, ResumedLoaderYieldsTheTailOfAnUninterruptedEpoch) {
  const DataLoaderOptions base{.batch_size = 5, .shuffle = true, .seed = 11};
  DataLoader reference(indexed_dataset(47), base);
  reference.set_epoch(4);
  const auto full = run_pass(reference);
  ASSERT_EQ(full.size(), 10u);

  for (int workers : {0, 2}) {
    auto options = base;
    options.num_workers = workers;
    DataLoader first(indexed_dataset(47), options);
    first.set_epoch(4);
    std::vector<Indices> head;
    for (auto& batch : first) {
      head.push_back(to_indices(batch));
      if (head.size() == 3) break;
    }
    const DataLoaderState saved = first.state();
    EXPECT_EQ(saved, (DataLoaderState{4, 3})) << workers << " workers";

    DataLoader resumed(indexed_dataset(47), options);
    resumed.load_state(saved);
    auto tail = run_pass(resumed);
    EXPECT_EQ(head, std::vector<Indices>(full.begin(), full.begin() + 3));
    EXPECT_EQ(tail, std::vector<Indices>(full.begin() + 3, full.end())) << workers << " workers";
    EXPECT_EQ(resumed.state(), (DataLoaderState{4, 0}));
  }
}

TEST(DataLoaderTest, ResumingAtTheEndOfAnEpochYieldsNothingThenAFullEpoch) {
  DataLoader loader(indexed_dataset(10), {.batch_size = 5});
  loader.load_state({.epoch = 0, .position = 2});
  EXPECT_TRUE(run_pass(loader).empty());
  EXPECT_EQ(loader.state(), (DataLoaderState{0, 0}));
  EXPECT_EQ(run_pass(loader).size(), 2u);
}

TEST(DataLoaderTest, LoadStateRejectsAPositionBeyondTheEpoch) {
  DataLoader loader(indexed_dataset(10), {.batch_size = 5});
  try {
    loader.load_state({.epoch = 0, .position = 3});
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("cannot resume at batch 3 of epoch 0: this loader has 2 batches"));
  }
  EXPECT_THROW(loader.batch_indices(2), DataError);
  EXPECT_THROW(loader.batch_indices(-1), DataError);
}

TEST(DataLoaderTest, InvalidOptionsAreConfigErrors) {
  EXPECT_THROW(DataLoader(indexed_dataset(4), {.batch_size = 0}), ConfigError);
  EXPECT_THROW(DataLoader(indexed_dataset(4), {.num_workers = -1}), ConfigError);
  EXPECT_THROW(DataLoader(indexed_dataset(4), {.num_workers = 1, .prefetch_factor = 0}),
               ConfigError);
  EXPECT_THROW(DataLoader(nullptr), DataError);
  DataLoader loader(indexed_dataset(4));
  loader.mutable_options().batch_size = -2;
  EXPECT_THROW(loader.begin(), ConfigError);
}

TEST(DataLoaderTest, BreakingOutWithWorkersStopsThemPromptly) {
  // 100 slow batches: building them all would take seconds; a break must not wait for that.
  auto dataset = std::make_shared<ProbeDataset>(200, std::chrono::milliseconds(30));
  DataLoader loader(dataset, {.batch_size = 2, .num_workers = 3, .prefetch_factor = 2});
  const auto start = std::chrono::steady_clock::now();
  int taken = 0;
  for (auto& batch : loader) {
    (void)batch;
    if (++taken == 2) break;
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::milliseconds(1500));
  // Workers claimed at most the batches in the window past the last one taken.
  EXPECT_LE(dataset->calls(), 2 + 3 * 2);
  const int calls_after_break = dataset->calls();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(dataset->calls(), calls_after_break) << "a worker kept running after the break";
  EXPECT_EQ(loader.state().position, 2);

  // A new pass continues where the broken one stopped, then the next one covers the whole epoch.
  loader.mutable_options().num_workers = 2;
  std::vector<Indices> rest;
  for (auto& batch : loader) rest.push_back(to_indices(batch));
  ASSERT_EQ(rest.size(), 98u);
  EXPECT_EQ(rest.front(), (Indices{4, 5}));
  EXPECT_EQ(rest.back(), (Indices{198, 199}));
}

TEST(DataLoaderTest, WorkersPrefetchAtMostTheirWindow) {
  auto dataset = std::make_shared<ProbeDataset>(100);
  DataLoader loader(dataset, {.batch_size = 1, .num_workers = 2, .prefetch_factor = 3});
  auto it = loader.begin();
  EXPECT_EQ(to_indices(*it), (Indices{0}));
  // Batch 0 taken: batches 1..6 (2 workers x 3) may be in flight, never more.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (dataset->calls() < 7 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(dataset->calls(), 7);
  ++it;
  EXPECT_EQ(to_indices(*it), (Indices{1}));
}

TEST(DataLoaderTest, AnExceptionInAWorkerReachesTheConsumerAtItsBatch) {
  for (int workers : {0, 1, 3}) {
    // Sample 7 is broken: with batches of 2 that is batch 3.
    auto dataset = std::make_shared<ProbeDataset>(20, std::chrono::milliseconds(0), 7);
    DataLoader loader(dataset, {.batch_size = 2, .num_workers = workers});
    std::vector<Indices> got;
    try {
      for (auto& batch : loader) got.push_back(to_indices(batch));
      FAIL() << "expected the dataset's exception with " << workers << " workers";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "probe: sample 7 is broken");
    }
    EXPECT_EQ(got, (std::vector<Indices>{{0, 1}, {2, 3}, {4, 5}})) << workers << " workers";
    EXPECT_EQ(loader.state().position, 3) << workers << " workers";
    // The loader stays usable: the next pass fails at the same batch again.
    EXPECT_THROW(run_pass(loader), std::runtime_error);
  }
}

TEST(DataLoaderTest, AnExceptionInTheFirstBatchComesOutOfBegin) {
  auto dataset = std::make_shared<ProbeDataset>(8, std::chrono::milliseconds(0), 0);
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 2});
  EXPECT_THROW(loader.begin(), std::runtime_error);
  EXPECT_EQ(loader.state().position, 0);
}

TEST(DataLoaderTest, ANewBeginStopsThePreviousPass) {
  DataLoader loader(indexed_dataset(20), {.batch_size = 2, .num_workers = 2});
  auto old_pass = loader.begin();
  ++old_pass;
  EXPECT_EQ(to_indices(*old_pass), (Indices{2, 3}));
  auto new_pass = loader.begin();
  EXPECT_TRUE(old_pass == loader.end());
  EXPECT_THROW(*old_pass, DataError);
  // Two batches were handed out, so the new pass continues with the third.
  EXPECT_EQ(to_indices(*new_pass), (Indices{4, 5}));
  int remaining = 1;
  for (++new_pass; new_pass != loader.end(); ++new_pass) ++remaining;
  EXPECT_EQ(remaining, 8);
}

TEST(DataLoaderTest, DestroyingTheLoaderEndsItsPass) {
  auto dataset = std::make_shared<ProbeDataset>(1000, std::chrono::milliseconds(2));
  auto loader =
      std::make_unique<DataLoader>(dataset, DataLoaderOptions{.batch_size = 1, .num_workers = 3});
  auto it = loader->begin();
  EXPECT_EQ(to_indices(*it), (Indices{0}));
  loader.reset();
  EXPECT_TRUE(it == DataLoader::Iterator());
  const int calls = dataset->calls();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(dataset->calls(), calls);
  ++it;  // harmless on an ended pass
  EXPECT_TRUE(it == DataLoader::Iterator());
}

TEST(DataLoaderTest, PinMemoryPinsOnlyWhereCudaExists) {
  for (int workers : {0, 2}) {
    DataLoader loader(
        indexed_dataset(8),
        {.batch_size = 4, .shuffle = true, .num_workers = workers, .pin_memory = true});
    int batches = 0;
    for (auto& batch : loader) {
      ++batches;
      EXPECT_EQ(batch.data.is_pinned(), torch::cuda::is_available());
      EXPECT_EQ(batch.target.is_pinned(), torch::cuda::is_available());
      EXPECT_TRUE(torch::equal(batch.target, batch.data + 1000));
    }
    EXPECT_EQ(batches, 2);
  }
}

TEST(DataLoaderTest, SequentialTensorBatchesAreViewsOfTheDataset) {
  auto dataset = std::make_shared<TensorDataset>(torch::arange(12), torch::Tensor());
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 1});
  int64_t k = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.data_ptr<int64_t>(), dataset->data().data_ptr<int64_t>() + 4 * k);
    EXPECT_FALSE(batch.target.defined());
    ++k;
  }
  EXPECT_EQ(k, 3);
}

}  // namespace
}  // namespace fulgur

namespace fulgur {
namespace {

DataLoaderOptions shard_of(int rank, int replicas, bool even, bool shuffle = false) {
  return {.batch_size = 2, .shuffle = shuffle, .seed = 5, .num_replicas = replicas,
          .rank = rank, .even_shards = even};
}

TEST(DataLoaderShardingTest, EvenShardsStrideThroughTheOrderAndPadFromItsStart) {
  // PyTorch's DistributedSampler(shuffle=False, drop_last=False) on 10 samples, 3 replicas.
  const std::vector<Indices> expected = {{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}};
  for (int rank = 0; rank < 3; ++rank) {
    DataLoader loader(indexed_dataset(10), shard_of(rank, 3, /*even=*/true));
    EXPECT_EQ(loader.shard_size(), 4);
    EXPECT_EQ(loader.size(), 2);
    EXPECT_EQ(flatten(run_pass(loader)), expected[static_cast<size_t>(rank)]) << rank;
  }
}

TEST(DataLoaderShardingTest, UnevenShardsCountEverySampleExactlyOnce) {
  Indices all;
  std::vector<int64_t> sizes;
  for (int rank = 0; rank < 3; ++rank) {
    DataLoader loader(indexed_dataset(10), shard_of(rank, 3, /*even=*/false, /*shuffle=*/true));
    loader.set_epoch(2);
    const auto mine = flatten(run_pass(loader));
    sizes.push_back(static_cast<int64_t>(mine.size()));
    EXPECT_EQ(loader.shard_size(), sizes.back());
    all.insert(all.end(), mine.begin(), mine.end());
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 3, 3}));
  std::sort(all.begin(), all.end());
  Indices every(10);
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(all, every);
}

TEST(DataLoaderShardingTest, RanksShareOneShuffledOrderPerEpoch) {
  DataLoader whole(indexed_dataset(12), {.batch_size = 2, .shuffle = true, .seed = 5});
  whole.set_epoch(3);
  const auto order = flatten(run_pass(whole));
  for (int rank = 0; rank < 2; ++rank) {
    DataLoader loader(indexed_dataset(12), shard_of(rank, 2, /*even=*/true, /*shuffle=*/true));
    loader.set_epoch(3);
    Indices expected;
    for (size_t i = static_cast<size_t>(rank); i < order.size(); i += 2) {
      expected.push_back(order[i]);
    }
    EXPECT_EQ(flatten(run_pass(loader)), expected) << rank;
  }
}

TEST(DataLoaderShardingTest, ARankOutsideTheReplicasIsAConfigError) {
  try {
    DataLoader loader(indexed_dataset(4), shard_of(2, 2, true));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "DataLoader: rank=2 of num_replicas=2 is invalid; num_replicas must be at least "
                 "1 and rank in [0, num_replicas)");
  }
}

}  // namespace
}  // namespace fulgur
