#pragma once
// Logger: where logged metrics and hyperparameters end up (CSV, TensorBoard, ...). The Trainer
// calls it on rank 0 only, with host values, at `log_every_n_steps` and at epoch ends.
#include <map>
#include <string>

#include "fulgur/hparams.h"

namespace fulgur {

class Logger {
 public:
  virtual ~Logger() = default;
  virtual std::string name() const = 0;
  // "version_N" style identifier of this run.
  virtual std::string version() const = 0;
  // Root under which this run's directory lives.
  virtual std::string save_dir() const = 0;
  // This run's directory; checkpoints go to <log_dir>/checkpoints.
  virtual std::string log_dir() const = 0;
  virtual void log_metrics(const std::map<std::string, double>& metrics, int64_t step) = 0;
  virtual void log_hyperparams(const HParams& params) = 0;
  // Flush what is buffered.
  virtual void save() {}
  // status: "success", "failed" or "interrupted".
  virtual void finalize(const std::string& status) { (void)status, save(); }
};

}  // namespace fulgur
