#pragma once
// TensorBoardLogger: Lightning's TensorBoard logger. Writes a TensorBoard event file
// (events.out.tfevents.*, see tensorboard/event_file_writer.h) and hparams.yaml into
// <save_dir>/<name>/version_N, N resolved as CSVLogger resolves it (version_directory.h). The
// directory and the event file appear on the first log_* call, never for a logger that is not
// used. Records are what PyTorch's SummaryWriter writes for Lightning:
// - log_metrics: one event per call at `step`, a scalar per key (SummaryWriter writes an event
//   per key; TensorBoard reads both alike), tags "<prefix>-<key>" (an `epoch` key is a scalar
//   like any other);
// - log_hyperparams: hparams.yaml rewritten with everything logged so far, and the hparams
//   plugin's three summaries for this call's values, together with its metrics (by default the
//   scalar hp_metric = -1 at step 0, as Lightning's default_hp_metric logs it);
// - log_text: SummaryWriter.add_text, which Lightning users reach through `logger.experiment`.
// Events are buffered and written as whole records (see EventFileWriter), at the latest on
// save(), finalize() or destruction; a crash leaves a file TensorBoard reads up to the last
// record written.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "fulgur/loggers/logger.h"
#include "fulgur/loggers/version_directory.h"

namespace fulgur {

namespace tensorboard {
class EventFileWriter;
}

struct TensorBoardLoggerOptions {
  std::string save_dir = ".";
  std::string name = "lightning_logs";
  std::optional<int> version;
  std::string prefix;  // metric tags become "<prefix>-<key>", as Lightning joins them
  // log_hyperparams without metrics logs hp_metric = -1, so TensorBoard's hparams tab has a
  // column to fill in later; off: nothing reaches the event file until metrics are given.
  bool default_hp_metric = true;
  // SummaryWriter's, which Lightning passes through: events buffered before a write (>= 1),
  // seconds after which the next event writes the buffer (>= 0), and a file name suffix.
  int max_queue = 10;
  double flush_secs = 120;
  std::string filename_suffix;
};

class TensorBoardLogger : public Logger {
 public:
  // Raises ConfigError for a negative version, max_queue < 1 or a negative flush_secs.
  explicit TensorBoardLogger(TensorBoardLoggerOptions options = {});
  ~TensorBoardLogger() override;
  TensorBoardLogger(const TensorBoardLogger&) = delete;
  TensorBoardLogger& operator=(const TensorBoardLogger&) = delete;

  std::string name() const override { return options_.name; }
  std::string version() const override { return dir_.version(); }
  std::string save_dir() const override { return options_.save_dir; }
  std::string log_dir() const override { return dir_.path(); }
  // The event file, once the first log_* call has created it; empty before.
  std::string event_file() const;

  void log_metrics(const std::map<std::string, double>& metrics, int64_t step) override;
  void log_hyperparams(const HParams& params) override;
  // Lightning's log_hyperparams(params, metrics): `metrics` are logged as scalars at step 0
  // and named in the hparams plugin's experiment; empty means the default_hp_metric rule.
  void log_hyperparams(const HParams& params, const std::map<std::string, double>& metrics);
  // A text summary under "<tag>/text_summary" (SummaryWriter.add_text's tag; no prefix).
  void log_text(const std::string& tag, const std::string& text, int64_t step);
  // Writes buffered events, and hparams.yaml ("{}") if the run never logged hyperparameters.
  void save() override;
  // save(), unless nothing was ever logged (then, as in Lightning, nothing appears).
  void finalize(const std::string& status) override;

 private:
  tensorboard::EventFileWriter& writer();

  TensorBoardLoggerOptions options_;
  VersionDirectory dir_;
  std::unique_ptr<tensorboard::EventFileWriter> writer_;
  HParams hparams_;
  bool hparams_written_ = false;
};

}  // namespace fulgur
