#pragma once
// DataConnector: finds each stage's DataLoader (explicit loader, else the DataModule's hook,
// else the Module's) and turns limit_*_batches / overfit_batches / fast_dev_run into a count.
#include <memory>
#include <string>

#include "fulgur/trainer_options.h"

namespace fulgur {

class DataLoader;
class DataModule;
class Module;
class Trainer;

class DataConnector {
 public:
  explicit DataConnector(Trainer& trainer) : trainer_(trainer) {}

  // stage: "train", "val", "test" or "predict". Calls the `<stage>_dataloader` hook when no
  // loader was given. Returns null when there is none.
  std::shared_ptr<DataLoader> request(const std::string& stage,
                                      std::shared_ptr<DataLoader> given);
  // Batches to run out of `available` under `limit` (flag names the option in errors).
  static int64_t limit_batches(int64_t available, const BatchCount& limit,
                               const std::string& flag);
  // The effective limit for a stage after fast_dev_run and overfit_batches.
  BatchCount effective_limit(const std::string& stage) const;

 private:
  Trainer& trainer_;
};

}  // namespace fulgur
