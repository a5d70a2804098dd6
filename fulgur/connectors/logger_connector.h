#pragma once
// LoggerConnector: routes `Module::log` to the running stage's ResultCollection with
// Lightning's per-hook defaults, and turns results into the Trainer's metric maps and logger
// calls. Device values are read to the host only when a logger writes (every
// `log_every_n_steps`, at epoch ends) or when someone reads a metric map.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "fulgur/connectors/result_collection.h"
#include "fulgur/loops/log_options.h"

namespace fulgur {

class Trainer;
using Metrics = std::map<std::string, double>;

class LoggerConnector {
 public:
  explicit LoggerConnector(Trainer& trainer);

  // The hook now running, which decides log()'s defaults; restored when the scope ends.
  class FxScope {
   public:
    FxScope(LoggerConnector& connector, const char* fx);
    ~FxScope();
    FxScope(const FxScope&) = delete;
    FxScope& operator=(const FxScope&) = delete;

   private:
    LoggerConnector& connector_;
    const char* previous_;
  };
  const char* current_fx() const { return current_fx_; }
  // Weight of values logged for the current batch.
  void set_batch_size(int64_t batch_size) { batch_size_ = batch_size; }

  void log(const std::string& name, const torch::Tensor& value, const LogOptions& options);
  // A log() call as the step made it, kept to be taken again (a step captured as a CUDA graph
  // makes its calls once; each replay writes new values into the same tensors).
  struct RecordedLog {
    std::string name;
    torch::Tensor value;
    ResolvedLog resolved;
    int64_t batch_size;
  };
  // While `into` is set, log() keeps its calls there instead of taking them, and log() of a
  // metric object is an error (its host-side state cannot be replayed).
  void record_logs(std::vector<RecordedLog>* into) { recorder_ = into; }
  // Takes recorded calls, with the values their tensors hold now.
  void take_recorded(const std::vector<RecordedLog>& logs);
  // Module::log of a metric object (see ResultCollection::log_metric).
  void log_metric(const std::string& name, const std::shared_ptr<metrics::Metric>& metric,
                  const LogOptions& options);

  // ---- training ----
  // After each training batch: publish step values; write them to the loggers when due and the
  // batch is not one that only accumulates gradients.
  void on_train_batch_end(int64_t batches_that_stepped, bool accumulating);
  // Makes the epoch's values visible in callback_metrics (before the epoch-end hooks read them).
  void update_train_epoch_metrics();
  // Publishes the epoch's values and writes them to the loggers.
  void on_train_epoch_end(int64_t batches_that_stepped);

  // ---- validation / test ----
  void on_eval_start() { eval_results_.reset(); }
  // Publishes the batch's step values; writes them to the loggers at `log_step` when given
  // (not during the sanity check).
  void on_eval_batch_end(std::optional<int64_t> log_step);
  // Publishes the epoch values and returns those meant for the loggers (logger=true), which get
  // them unless `log` is false (sanity).
  Metrics on_eval_end(bool log, int64_t step);
  // Lightning's should_update_logs: the step about to be counted is due every
  // log_every_n_steps, or training is stopping; never with log_every_n_steps=0.
  bool should_update_logs() const;
  // Sets a callback metric that was not logged through Module::log (LearningRateMonitor's
  // rates), so monitoring callbacks can read it.
  void set_callback_metric(const std::string& name, double value);
  // Clears every metric map (at the start of fit/validate/test).
  void reset();

  const Metrics& callback_metrics();
  const Metrics& progress_bar_metrics();
  // Every value logged with logger=true, as last published (also without loggers).
  const Metrics& logged_metrics();
  // How many times logged values were read to the host (each a device sync on CUDA): once per
  // logger write, epoch end or metric-map read, never per step.
  int64_t host_reads() const { return host_reads_; }

 private:
  ResultCollection& active_results();
  // log()'s options with the current hook's defaults; nullopt when neither on_step nor
  // on_epoch (Lightning ignores such calls). Raises for a hook that may not log.
  std::optional<ResolvedLog> resolve(const std::string& name, const LogOptions& options) const;
  // Makes values visible in the metric maps (callback metrics only when `to_callback`); returns
  // those meant for the loggers.
  std::map<std::string, torch::Tensor> publish(
      const std::map<std::string, ResultCollection::Value>& values, bool to_callback);
  // Sends values to every logger (rank 0), with "epoch" added when `add_epoch`; reads them to
  // the host only when there is a logger.
  void write(const std::map<std::string, torch::Tensor>& values, int64_t step, bool add_epoch);
  void write_host(Metrics metrics, int64_t step, bool add_epoch);
  // One device-to-host transfer for all of `tensors` (counted in host_reads_).
  Metrics to_host(const std::map<std::string, torch::Tensor>& tensors);

  Trainer& trainer_;
  const char* current_fx_ = nullptr;
  int64_t host_reads_ = 0;
  int64_t batch_size_ = 1;
  ResultCollection train_results_;
  ResultCollection eval_results_;
  // Latest values on their device; host copies made on demand.
  std::map<std::string, torch::Tensor> callback_values_;
  std::map<std::string, torch::Tensor> progress_bar_values_;
  Metrics callback_metrics_;
  Metrics progress_bar_metrics_;
  bool callback_dirty_ = false;
  bool progress_bar_dirty_ = false;
  std::map<std::string, torch::Tensor> logged_values_;
  Metrics logged_metrics_;
  bool logged_dirty_ = false;
  // Train step values that reach the loggers at the next due step.
  std::map<std::string, torch::Tensor> pending_train_values_;
  std::vector<RecordedLog>* recorder_ = nullptr;
};

}  // namespace fulgur
