#pragma once
// FabricDataLoader: what Fabric::setup_dataloaders returns — the user's DataLoader, sharded
// across ranks, whose batches arrive on the Fabric's device with floating-point inputs in the
// precision's dtype, so the loop body needs no `.to(device)`.
#include <functional>
#include <memory>
#include <optional>

#include "fulgur/data/data_loader.h"

namespace fulgur {

class FabricDataLoader {
 public:
  using Transfer = std::function<Batch(Batch)>;
  // `transfer` null: batches stay where the loader makes them.
  FabricDataLoader(std::shared_ptr<DataLoader> loader, Transfer transfer);

  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(DataLoader::Iterator inner, const Transfer* transfer)
        : inner_(std::move(inner)), transfer_(transfer) {}
    Batch& operator*();
    Batch* operator->() { return &**this; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return inner_ == other.inner_; }

   private:
    DataLoader::Iterator inner_;
    const Transfer* transfer_ = nullptr;
    std::optional<Batch> current_;  // the batch at inner_, transferred once
  };

  Iterator begin() { return Iterator(loader_->begin(), transfer_ ? &transfer_ : nullptr); }
  Iterator end() { return Iterator(); }
  // Batches per epoch on this rank.
  int64_t size() const { return loader_->size(); }
  // The shuffled order of `epoch` (call it at each epoch's start, as with DistributedSampler).
  void set_epoch(int64_t epoch) { loader_->set_epoch(epoch); }
  DataLoader& loader() { return *loader_; }

 private:
  std::shared_ptr<DataLoader> loader_;
  Transfer transfer_;
};

}  // namespace fulgur
