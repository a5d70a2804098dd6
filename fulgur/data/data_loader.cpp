#include "fulgur/data/data_loader.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <torch/cuda.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "fulgur/errors.h"

namespace fulgur {

// One walk over the rest of an epoch. The consumer (the thread that advances the iterator) takes
// batch k, k+1, ... in order; with workers, batch k is built by whichever worker claimed it and
// parked in slot k % window until the consumer takes it. A worker may claim batch j only while
// j < wanted_ + window, so at most `window` batches are ever in flight and a slot is never reused
// before the consumer emptied it.
class DataLoader::Pass {
 public:
  Pass(DataLoader* owner, std::shared_ptr<const Dataset> dataset,
       std::shared_ptr<const std::vector<int64_t>> order, int64_t batch_size, int64_t total,
       int64_t start, bool pin)
      : owner_(owner),
        dataset_(std::move(dataset)),
        order_(std::move(order)),
        batch_size_(batch_size),
        total_(total),
        next_(start),
        pin_(pin),
        scheduled_(start),
        wanted_(start) {}

  ~Pass() { stop_workers(); }

  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;

  void start_workers(int num_workers, int prefetch_factor) {
    const int64_t remaining = total_ - next_;
    const auto count = static_cast<int>(std::min<int64_t>(num_workers, remaining));
    if (count <= 0) return;
    window_ = static_cast<int64_t>(num_workers) * prefetch_factor;
    slots_.resize(static_cast<size_t>(window_));
    workers_.reserve(static_cast<size_t>(count));
    try {
      for (int i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop_workers();
      throw;
    }
  }

  bool finished() const { return finished_; }

  Batch& current() { return *current_; }

  // Moves to the next batch of the epoch (the first one on the first call).
  void advance() {
    if (finished_) return;
    current_.reset();
    if (next_ >= total_) {
      finished_ = true;
      stop_workers();
      if (owner_ != nullptr) owner_->state_.position = 0;
      return;
    }
    try {
      current_ = workers_.empty() ? build(next_) : take(next_);
    } catch (...) {
      // The failed batch was not handed out, so the loader's position stays before it.
      finished_ = true;
      stop_workers();
      throw;
    }
    ++next_;
    if (owner_ != nullptr) owner_->state_.position = next_;
  }

  // The loader is gone or started another pass: this one must neither run nor touch its state.
  void detach() {
    finished_ = true;
    owner_ = nullptr;
    stop_workers();
  }

 private:
  struct Slot {
    int64_t index = -1;
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  Batch build(int64_t k) const {
    const auto& order = *order_;
    const int64_t begin = k * batch_size_;
    const int64_t end = std::min<int64_t>(begin + batch_size_, static_cast<int64_t>(order.size()));
    std::vector<int64_t> indices(order.begin() + begin, order.begin() + end);
    Batch batch = dataset_->get_batch(indices);
    if (pin_) {
      if (batch.data.defined() && !batch.data.is_pinned()) batch.data = batch.data.pin_memory();
      if (batch.target.defined() && !batch.target.is_pinned())
        batch.target = batch.target.pin_memory();
    }
    return batch;
  }

  void work() {
    for (;;) {
      int64_t k = 0;
      {
        std::unique_lock lock(mutex_);
        work_cv_.wait(
            lock, [&] { return stop_ || scheduled_ >= total_ || scheduled_ < wanted_ + window_; });
        if (stop_ || scheduled_ >= total_) return;
        k = scheduled_++;
      }
      Slot result;
      result.index = k;
      try {
        result.batch = build(k);
      } catch (...) {
        result.error = std::current_exception();
      }
      bool wake_consumer = false;
      {
        std::lock_guard lock(mutex_);
        slots_[static_cast<size_t>(k % window_)] = std::move(result);
        wake_consumer = k == wanted_;
      }
      if (wake_consumer) ready_cv_.notify_one();
    }
  }

  Batch take(int64_t k) {
    Slot slot;
    {
      std::unique_lock lock(mutex_);
      auto& parked = slots_[static_cast<size_t>(k % window_)];
      ready_cv_.wait(lock, [&] { return parked.index == k; });
      slot = std::move(parked);
      parked = Slot{};
      wanted_ = k + 1;
    }
    // The window moved by one: exactly one more batch may be claimed.
    work_cv_.notify_one();
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(*slot.batch);
  }

  void stop_workers() {
    if (workers_.empty()) return;
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& worker : workers_) worker.join();
    workers_.clear();
    slots_.clear();
  }

  DataLoader* owner_;
  const std::shared_ptr<const Dataset> dataset_;
  const std::shared_ptr<const std::vector<int64_t>> order_;
  const int64_t batch_size_;
  const int64_t total_;
  int64_t next_;  // the batch the next advance() hands out
  const bool pin_;
  bool finished_ = false;
  std::optional<Batch> current_;

  // Shared with the workers, under mutex_.
  std::mutex mutex_;
  std::condition_variable work_cv_;   // workers: a slot in the window opened, or stop
  std::condition_variable ready_cv_;  // consumer: the batch it waits for is parked
  bool stop_ = false;
  int64_t scheduled_;  // next batch a worker will claim
  int64_t wanted_;     // next batch the consumer will take
  int64_t window_ = 1;
  std::vector<Slot> slots_;
  std::vector<std::thread> workers_;
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_) {
    throw DataError(
        "DataLoader: the dataset is null; pass a dataset, e.g. "
        "std::make_shared<fulgur::TensorDataset>(inputs, targets)");
  }
  validate_options();
}

DataLoader::~DataLoader() { stop_active_pass(); }

void DataLoader::validate_options() const {
  if (options_.batch_size < 1) {
    throw ConfigError(fmt::format("DataLoader: batch_size={} is invalid; it must be at least 1",
                                  options_.batch_size));
  }
  if (options_.num_workers < 0) {
    throw ConfigError(
        fmt::format("DataLoader: num_workers={} is invalid; use 0 (load in the "
                    "calling thread) or a positive number of worker threads",
                    options_.num_workers));
  }
  if (options_.num_replicas < 1 || options_.rank < 0 || options_.rank >= options_.num_replicas) {
    throw ConfigError(fmt::format(
        "DataLoader: rank={} of num_replicas={} is invalid; num_replicas must be at least 1 and "
        "rank in [0, num_replicas)",
        options_.rank, options_.num_replicas));
  }
  if (options_.num_workers > 0 && options_.prefetch_factor < 1) {
    throw ConfigError(
        fmt::format("DataLoader: prefetch_factor={} is invalid with num_workers={}; "
                    "it must be at least 1",
                    options_.prefetch_factor, options_.num_workers));
  }
}

int64_t DataLoader::dataset_size() const { return dataset_->size(); }

int64_t DataLoader::shard_size() const {
  const int64_t n = dataset_->size();
  const int64_t replicas = options_.num_replicas;
  if (options_.even_shards) return (n + replicas - 1) / replicas;
  return n / replicas + (options_.rank < n % replicas ? 1 : 0);
}

int64_t DataLoader::size() const {
  validate_options();
  const int64_t n = shard_size();
  const int64_t batch = options_.batch_size;
  return options_.drop_last ? n / batch : (n + batch - 1) / batch;
}

const std::shared_ptr<const std::vector<int64_t>>& DataLoader::order() const {
  const int64_t n = dataset_->size();
  // Without shuffling every epoch has the same order: key it so that it is built once.
  OrderKey key{.epoch = options_.shuffle ? state_.epoch : 0,
               .seed = options_.shuffle ? options_.seed : 0,
               .shuffle = options_.shuffle,
               .dataset_size = n,
               .num_replicas = options_.num_replicas,
               .rank = options_.rank,
               .even_shards = options_.even_shards};
  if (order_ && key == order_key_) return order_;
  auto order = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(n));
  if (options_.shuffle) {
    // A fresh generator per epoch: the order depends on (seed, epoch) only, never on what ran
    // before.
    auto generator =
        at::detail::createCPUGenerator(options_.seed + static_cast<uint64_t>(state_.epoch));
    auto permutation = torch::randperm(n, generator, torch::kLong);
    std::copy_n(permutation.data_ptr<int64_t>(), n, order->begin());
  } else {
    for (int64_t i = 0; i < n; ++i) (*order)[static_cast<size_t>(i)] = i;
  }
  if (options_.num_replicas > 1 && n > 0) {
    // Every rank built the same order; each keeps its own stride through it (padded from the
    // start when the shards must be even).
    const int64_t replicas = options_.num_replicas;
    const int64_t total = options_.even_shards ? shard_size() * replicas : n;
    auto shard = std::make_shared<std::vector<int64_t>>();
    shard->reserve(static_cast<size_t>(shard_size()));
    for (int64_t i = options_.rank; i < total; i += replicas) {
      shard->push_back((*order)[static_cast<size_t>(i % n)]);
    }
    order = std::move(shard);
  }
  order_ = std::move(order);
  order_key_ = key;
  return order_;
}

void DataLoader::stop_active_pass() {
  if (auto pass = active_pass_.lock()) pass->detach();
  active_pass_.reset();
}

void DataLoader::set_epoch(int64_t epoch) {
  if (epoch < 0) {
    throw DataError(fmt::format("DataLoader::set_epoch({}): the epoch must be >= 0", epoch));
  }
  if (epoch == state_.epoch) return;
  stop_active_pass();
  state_.epoch = epoch;
  state_.position = 0;
}

void DataLoader::load_state(const DataLoaderState& state) {
  const int64_t batches = size();
  if (state.epoch < 0 || state.position < 0 || state.position > batches) {
    throw DataError(
        fmt::format("DataLoader: cannot resume at batch {} of epoch {}: this loader has "
                    "{} batches per epoch; the batch size, drop_last or the dataset "
                    "changed since the state was saved",
                    state.position, state.epoch, batches));
  }
  stop_active_pass();
  state_ = state;
}

std::vector<int64_t> DataLoader::batch_indices(int64_t batch_index) const {
  const int64_t batches = size();
  if (batch_index < 0 || batch_index >= batches) {
    throw DataError(
        fmt::format("DataLoader::batch_indices({}): out of range, the loader has {} "
                    "batches per epoch",
                    batch_index, batches));
  }
  const auto& order = *this->order();
  const int64_t begin = batch_index * options_.batch_size;
  const int64_t end =
      std::min<int64_t>(begin + options_.batch_size, static_cast<int64_t>(order.size()));
  return {order.begin() + begin, order.begin() + end};
}

DataLoader::Iterator DataLoader::begin() {
  validate_options();
  stop_active_pass();
  const int64_t total = size();
  // Resuming past the end (a state saved after the last batch) just finishes the epoch.
  const int64_t start = std::min(state_.position, total);
  const bool pin = options_.pin_memory && torch::cuda::is_available();
  auto pass =
      std::make_shared<Pass>(this, dataset_, order(), options_.batch_size, total, start, pin);
  active_pass_ = pass;
  pass->start_workers(options_.num_workers, options_.prefetch_factor);
  pass->advance();
  return Iterator(std::move(pass));
}

DataLoader::Iterator::Iterator(std::shared_ptr<Pass> pass) : pass_(std::move(pass)) {}

Batch& DataLoader::Iterator::operator*() {
  if (!pass_ || pass_->finished()) {
    throw DataError(
        "DataLoader: dereferenced an iterator that is at the end of its pass, or whose "
        "pass was ended by a newer begin(), set_epoch(), load_state() or the loader's "
        "destruction");
  }
  return pass_->current();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  if (pass_) pass_->advance();
  return *this;
}

bool DataLoader::Iterator::operator==(const Iterator& other) const {
  const bool at_end = !pass_ || pass_->finished();
  const bool other_at_end = !other.pass_ || other.pass_->finished();
  if (at_end || other_at_end) return at_end == other_at_end;
  return pass_ == other.pass_;
}

}  // namespace fulgur
