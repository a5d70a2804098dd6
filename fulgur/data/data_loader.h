#pragma once
// Turns a Dataset into batches: batch size, per-epoch seeded shuffling, drop_last, worker
// threads with prefetch, pinned memory, a known length, and a resumable state.
//
// Guarantees: the order of batches depends only on (seed, epoch), never on the number of
// workers; iterating a pass yields exactly size() batches (fewer when resumed mid-epoch);
// leaving a pass early (break) stops and joins its workers.
//
// A pass starts at state().position and counts each batch as handed out once the iterator
// points at it; a pass that reaches the end of the epoch sets the position back to 0 (the epoch
// stays: the caller moves on with set_epoch). A pass left early keeps its position, so the next
// begin() continues the same epoch where it stopped. With workers, at most
// num_workers * prefetch_factor batches are built ahead, and they are handed out in order; an
// exception thrown while building a batch reaches the consumer at that batch and ends the pass.
// A loader serves one consumer thread; begin(), set_epoch() and load_state() end a pass in
// progress.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fulgur/data/batch.h"
#include "fulgur/data/dataset.h"

namespace fulgur {

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  // Shuffled order of epoch e is a permutation drawn from a generator seeded with seed + e.
  uint64_t seed = 0;
  bool drop_last = false;
  // Worker threads that assemble batches ahead of the consumer; 0 = in the calling thread.
  int num_workers = 0;
  // Batches in flight per worker.
  int prefetch_factor = 2;
  // Page-lock batches so a CUDA copy can be asynchronous. The Trainer turns it on for CUDA.
  bool pin_memory = false;
  // Distributed sharding (PyTorch's DistributedSampler): every rank draws the same epoch order
  // and keeps every num_replicas-th sample from its rank on. The Trainer sets these under a
  // multi-process strategy.
  int num_replicas = 1;
  int rank = 0;
  // true (training): shards are made equal by repeating samples from the start of the order,
  // so every rank runs the same number of steps. false (evaluation): no sample repeats, so
  // metrics count each sample once; shard sizes may differ by one.
  bool even_shards = true;
};

// Where a loader stands: the epoch it serves and how many batches of it were already handed out.
struct DataLoaderState {
  int64_t epoch = 0;
  int64_t position = 0;
  bool operator==(const DataLoaderState&) const = default;
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Batches per epoch (of this rank's shard).
  int64_t size() const;
  // Samples per epoch in this rank's shard (the dataset's size on one process).
  int64_t shard_size() const;
  int64_t dataset_size() const;
  const DataLoaderOptions& options() const { return options_; }
  DataLoaderOptions& mutable_options() { return options_; }
  const Dataset& dataset() const { return *dataset_; }

  // Selects the epoch whose order the next pass follows (resets the position when it changes).
  void set_epoch(int64_t epoch);
  DataLoaderState state() const { return state_; }
  // Resume: the next pass starts at `state.position` within `state.epoch`.
  void load_state(const DataLoaderState& state);

  // The sample indices of batch `batch_index` of the current epoch.
  std::vector<int64_t> batch_indices(int64_t batch_index) const;

  class Pass;
  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    explicit Iterator(std::shared_ptr<Pass> pass);
    Batch& operator*();
    Batch* operator->() { return &**this; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const;

   private:
    std::shared_ptr<Pass> pass_;
  };
  // Starts a pass over the rest of the current epoch. One pass at a time per loader.
  Iterator begin();
  Iterator end() { return Iterator(); }

 private:
  friend class Pass;
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  DataLoaderState state_;
  // Sample order of order_key_'s epoch, built on first use and shared with the pass that reads it;
  // the key lets a change through mutable_options() (seed, shuffle) rebuild it.
  struct OrderKey {
    int64_t epoch = -1;
    uint64_t seed = 0;
    bool shuffle = false;
    int64_t dataset_size = -1;
    int num_replicas = 1;
    int rank = 0;
    bool even_shards = true;
    bool operator==(const OrderKey&) const = default;
  };
  mutable std::shared_ptr<const std::vector<int64_t>> order_;
  mutable OrderKey order_key_;
  std::weak_ptr<Pass> active_pass_;
  const std::shared_ptr<const std::vector<int64_t>>& order() const;
  void validate_options() const;
  // Ends the pass in progress, if any, and cuts it off from this loader's state.
  void stop_active_pass();
};

}  // namespace fulgur
