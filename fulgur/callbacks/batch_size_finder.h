#pragma once
// BatchSizeFinder: Lightning's callback form of the tuner's batch-size scaling. At fit start it
// runs the search (see tuner/batch_size_scaling.h) and writes the size found into the
// hyperparameter the data hooks read; the fit then asks the hooks for its loaders. (Lightning's
// callback also searches at validate/test/predict start; here the Tuner's `method` does that.)
#include <optional>

#include "fulgur/callbacks/callback.h"
#include "fulgur/tuner/batch_size_scaling.h"

namespace fulgur {

class BatchSizeFinder : public Callback {
 public:
  explicit BatchSizeFinder(BatchSizeFinderOptions options = {});
  std::string name() const override { return "BatchSizeFinder"; }
  void on_fit_start(Trainer& trainer, Module& module) override;
  const BatchSizeFinderOptions& options() const { return options_; }
  // nullopt before fit or when the search was skipped (fast_dev_run).
  std::optional<int64_t> optimal_batch_size() const { return optimal_batch_size_; }

 private:
  BatchSizeFinderOptions options_;
  std::optional<int64_t> optimal_batch_size_;
};

}  // namespace fulgur
