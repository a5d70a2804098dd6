#pragma once
// CSVLogger: <save_dir>/<name>/version_N/metrics.csv and hparams.yaml (Lightning's layout).
// N is the given version, else one more than the highest existing version_K directory; it is
// decided on first use and never changes afterwards. The directory appears on the first write.
// The CSV's columns are the sorted union of every key logged so far plus `step` (an `epoch`
// key is a metric like any other); missing values are empty cells. Rows are buffered and
// written every `flush_logs_every_n_steps` log_metrics calls, on save(), finalize() and
// destruction. When a new key appears the file is rewritten with the wider header, streaming
// the old rows from disk, so memory stays bounded however long the run. A rewrite goes to a
// temporary file that is renamed over the old one, and a flush appends whole rows in one
// write, so a crash never leaves a torn table behind.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fulgur/loggers/logger.h"
#include "fulgur/loggers/version_directory.h"

namespace fulgur {

struct CSVLoggerOptions {
  std::string save_dir = ".";
  std::string name = "lightning_logs";
  std::optional<int> version;
  std::string prefix;  // keys become "<prefix>-<key>", as Lightning joins them
  int64_t flush_logs_every_n_steps = 100;
};

class CSVLogger : public Logger {
 public:
  // Raises ConfigError for a negative version or flush_logs_every_n_steps < 1.
  explicit CSVLogger(CSVLoggerOptions options = {});
  ~CSVLogger() override;
  std::string name() const override { return options_.name; }
  std::string version() const override { return dir_.version(); }
  std::string save_dir() const override { return options_.save_dir; }
  std::string log_dir() const override { return dir_.path(); }
  void log_metrics(const std::map<std::string, double>& metrics, int64_t step) override;
  // Merges into the hyperparameters logged so far and rewrites hparams.yaml.
  void log_hyperparams(const HParams& params) override;
  void save() override;
  // Flushes, unless nothing was ever written (then, as in Lightning, no directory appears).
  void finalize(const std::string& status) override;

 private:
  struct Row {
    int64_t step;
    std::map<std::string, double> values;
  };

  void write_hparams();
  void write_metrics();

  CSVLoggerOptions options_;
  VersionDirectory dir_;
  std::vector<Row> rows_;  // logged, not yet on disk
  int64_t log_calls_ = 0;
  std::set<std::string> columns_;          // every key logged so far, with "step"
  std::vector<std::string> file_columns_;  // the header metrics.csv has on disk (empty: no file)
  HParams hparams_;
  bool hparams_written_ = false;
};

}  // namespace fulgur
