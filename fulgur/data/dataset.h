#pragma once
// What a DataLoader reads from: a finite, indexable collection of samples that can hand out a
// whole batch for a list of indices. Implementations must be safe to call from several worker
// threads at once (read-only access).
#include <cstdint>
#include <vector>

#include "fulgur/data/batch.h"

namespace fulgur {

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  // The samples at `indices`, stacked into one batch. Indices are in [0, size()).
  virtual Batch get_batch(const std::vector<int64_t>& indices) const = 0;
};

}  // namespace fulgur
