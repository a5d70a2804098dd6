#include "fulgur/connectors/logger_connector.h"

#include "fulgur/metrics/metric.h"

#include <set>

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

// Lightning's _FxValidator: which hooks may log, and their on_step/on_epoch defaults.
enum class FxKind { StepLevel, EvalStepLevel, EpochLevel };

std::optional<FxKind> fx_kind(const char* fx) {
  static const std::set<std::string> step_level = {
      "training_step",        "on_train_batch_start",    "on_train_batch_end",
      "on_before_backward",   "on_after_backward",       "on_before_optimizer_step",
      "on_before_zero_grad",  "optimizer_step",          "optimizer_zero_grad",
      "configure_gradient_clipping"};
  static const std::set<std::string> eval_step_level = {
      "validation_step",         "test_step",           "on_validation_batch_start",
      "on_validation_batch_end", "on_test_batch_start", "on_test_batch_end"};
  static const std::set<std::string> epoch_level = {
      "on_train_start",           "on_train_epoch_start",     "on_train_epoch_end",
      "on_validation_start",      "on_validation_epoch_start", "on_validation_epoch_end",
      "on_test_start",            "on_test_epoch_start",      "on_test_epoch_end"};
  if (fx == nullptr) return std::nullopt;
  if (step_level.count(fx)) return FxKind::StepLevel;
  if (eval_step_level.count(fx)) return FxKind::EvalStepLevel;
  if (epoch_level.count(fx)) return FxKind::EpochLevel;
  return std::nullopt;
}

}  // namespace

LoggerConnector::LoggerConnector(Trainer& trainer) : trainer_(trainer) {
  auto sync = [this](const torch::Tensor& value, ReduceFx op) {
    switch (op) {
      case ReduceFx::Sum: return trainer_.strategy().reduce(value, ReduceOp::Sum);
      case ReduceFx::Min: return trainer_.strategy().reduce(value, ReduceOp::Min);
      case ReduceFx::Max: return trainer_.strategy().reduce(value, ReduceOp::Max);
      case ReduceFx::Mean: break;
    }
    return trainer_.strategy().reduce(value, ReduceOp::Mean);
  };
  train_results_.set_sync(sync);
  eval_results_.set_sync(sync);
  // torchmetrics computes over every rank's state (sum the states, then compute).
  auto compute = [this](metrics::Metric& metric) {
    return trainer_.world_size() > 1 ? metric.compute(trainer_.strategy()) : metric.compute();
  };
  train_results_.set_metric_compute(compute);
  eval_results_.set_metric_compute(compute);
}

LoggerConnector::FxScope::FxScope(LoggerConnector& connector, const char* fx)
    : connector_(connector), previous_(connector.current_fx_) {
  connector_.current_fx_ = fx;
}

LoggerConnector::FxScope::~FxScope() { connector_.current_fx_ = previous_; }

ResultCollection& LoggerConnector::active_results() {
  return trainer_.stage() == RunningStage::Training ? train_results_ : eval_results_;
}

std::optional<ResolvedLog> LoggerConnector::resolve(const std::string& name,
                                                    const LogOptions& options) const {
  const char* fx = current_fx_;
  auto kind = fx_kind(fx);
  if (!kind) {
    throw MisconfigurationError(fmt::format(
        "You can't `log(\"{}\")` inside `{}`: logging is allowed in the training, validation "
        "and test steps and in their batch, epoch and start hooks",
        name, fx ? fx : "this context"));
  }
  ResolvedLog resolved;
  resolved.on_step = options.on_step.value_or(*kind == FxKind::StepLevel);
  resolved.on_epoch = options.on_epoch.value_or(*kind != FxKind::StepLevel);
  resolved.prog_bar = options.prog_bar;
  resolved.logger = options.logger;
  resolved.reduce_fx = options.reduce_fx;
  resolved.sync_dist = options.sync_dist;
  if (*kind == FxKind::EpochLevel && resolved.on_step) {
    throw MisconfigurationError(fmt::format(
        "You can't `log(\"{}\", on_step=true)` in `{}`: it runs once per epoch; use on_epoch",
        name, fx));
  }
  if (!resolved.on_step && !resolved.on_epoch) return std::nullopt;  // Lightning ignores these
  return resolved;
}

void LoggerConnector::log(const std::string& name, const torch::Tensor& value,
                          const LogOptions& options) {
  if (!value.defined()) {
    throw MisconfigurationError(fmt::format("log(\"{}\") got an undefined tensor", name));
  }
  const auto resolved = resolve(name, options);
  // Sanity-check results are thrown away, so the values need not be kept either.
  if (!resolved || trainer_.sanity_checking()) return;
  const int64_t batch_size = options.batch_size.value_or(batch_size_);
  if (recorder_ != nullptr) {
    recorder_->push_back({name, value, *resolved, batch_size});
    return;
  }
  active_results().log(name, value, *resolved, batch_size);
}

void LoggerConnector::take_recorded(const std::vector<RecordedLog>& logs) {
  for (const auto& l : logs) active_results().log(l.name, l.value, l.resolved, l.batch_size);
}

void LoggerConnector::log_metric(const std::string& name,
                                 const std::shared_ptr<metrics::Metric>& metric,
                                 const LogOptions& options) {
  if (!metric) throw MisconfigurationError(fmt::format("log(\"{}\") got no metric", name));
  if (recorder_ != nullptr) {
    throw MisconfigurationError(fmt::format(
        "log(\"{}\") of metric {} in a training step captured as a CUDA graph "
        "(CUDAAcceleratorOptions::cuda_graph): a metric object keeps state on the host, which a "
        "replay of the graph cannot update; log its value as a tensor, or turn cuda_graph off",
        name, metric->name()));
  }
  if (!metric->is_scalar()) {
    throw MisconfigurationError(fmt::format(
        "log(\"{}\") got metric {}, whose value is not a single number; log its entries instead",
        name, metric->name()));
  }
  const auto resolved = resolve(name, options);
  if (!resolved) return;
  torch::Tensor batch_value;
  if (resolved->on_step) {
    batch_value = metric->forward_value();
    if (!batch_value.defined()) {
      throw MisconfigurationError(fmt::format(
          "log(\"{}\") of metric {} with on_step=true needs its value on this batch: call "
          "forward(preds, target) in the step (update() feeds only the epoch value), or log "
          "with on_step=false",
          name, metric->name()));
    }
  }
  // Kept during the sanity check too, so that the reset after it clears what it fed in.
  active_results().log_metric(name, metric, batch_value, *resolved);
}

std::map<std::string, torch::Tensor> LoggerConnector::publish(
    const std::map<std::string, ResultCollection::Value>& values, bool to_callback) {
  std::map<std::string, torch::Tensor> for_loggers;
  for (const auto& [key, v] : values) {
    if (to_callback) {
      // A value forked into "name_step" / "name_epoch" also answers to "name".
      callback_values_[key] = v.value;
      if (v.name != key) callback_values_[v.name] = v.value;
      callback_dirty_ = true;
    }
    if (v.prog_bar) {
      progress_bar_values_[key] = v.value;
      progress_bar_dirty_ = true;
    }
    if (v.logger) {
      for_loggers[key] = v.value;
      logged_values_[key] = v.value;
      logged_dirty_ = true;
    }
  }
  return for_loggers;
}

void LoggerConnector::on_train_batch_end(int64_t batches_that_stepped, bool accumulating) {
  for (auto& [key, value] : publish(train_results_.take_step_values(), /*to_callback=*/true)) {
    pending_train_values_[key] = value;
  }
  // As Lightning, a batch that only accumulates gradients writes nothing: the step it belongs
  // to is logged once, at the batch that steps.
  if (accumulating) return;
  if (should_update_logs() && !pending_train_values_.empty()) {
    write(pending_train_values_, batches_that_stepped, /*add_epoch=*/true);
    pending_train_values_.clear();
  }
}

void LoggerConnector::update_train_epoch_metrics() {
  publish(train_results_.epoch_values(), /*to_callback=*/true);
}

void LoggerConnector::on_train_epoch_end(int64_t batches_that_stepped) {
  pending_train_values_.clear();  // step values not yet due stay unlogged, as in Lightning
  write(publish(train_results_.epoch_values(), /*to_callback=*/true), batches_that_stepped,
        /*add_epoch=*/true);
  // As Lightning, the results are cleared once the epoch is logged (not at the next epoch's
  // start), so that what on_train_start logs counts in the first epoch.
  train_results_.reset();
}

void LoggerConnector::on_eval_batch_end(std::optional<int64_t> log_step) {
  // As Lightning: an evaluation's step values reach the progress bar and, at each batch, the
  // loggers (at the count of batches seen, without "epoch"); callback metrics only take epoch
  // values.
  auto for_loggers = publish(eval_results_.take_step_values(), /*to_callback=*/false);
  if (log_step) write(for_loggers, *log_step, /*add_epoch=*/false);
}

Metrics LoggerConnector::on_eval_end(bool log, int64_t step) {
  // What Lightning's validate() and test() return: the epoch values meant for the loggers.
  Metrics result = to_host(publish(eval_results_.epoch_values(), /*to_callback=*/true));
  if (log) write_host(result, step, /*add_epoch=*/true);
  return result;
}

void LoggerConnector::write(const std::map<std::string, torch::Tensor>& values, int64_t step,
                            bool add_epoch) {
  // Without loggers nothing is read to the host.
  if (trainer_.loggers().empty() || values.empty()) return;
  write_host(to_host(values), step, add_epoch);
}

void LoggerConnector::write_host(Metrics metrics, int64_t step, bool add_epoch) {
  if (trainer_.loggers().empty() || metrics.empty() || !trainer_.is_global_zero()) return;
  if (add_epoch) metrics.emplace("epoch", static_cast<double>(trainer_.current_epoch()));
  for (const auto& logger : trainer_.loggers()) logger->log_metrics(metrics, step);
}

bool LoggerConnector::should_update_logs() const {
  const int64_t every = trainer_.options().log_every_n_steps;
  if (every == 0) return false;  // step values never reach the loggers
  return (trainer_.batches_that_stepped() + 1) % every == 0 || trainer_.should_stop();
}

void LoggerConnector::set_callback_metric(const std::string& name, double value) {
  // On the root device, like every logged value, so the one-transfer read still works.
  callback_values_[name] =
      torch::tensor(value, torch::dtype(torch::kDouble).device(trainer_.strategy().root_device()));
  callback_dirty_ = true;
}

void LoggerConnector::reset() {
  train_results_.reset();
  eval_results_.reset();
  callback_values_.clear();
  progress_bar_values_.clear();
  callback_metrics_.clear();
  progress_bar_metrics_.clear();
  logged_values_.clear();
  logged_metrics_.clear();
  pending_train_values_.clear();
  callback_dirty_ = progress_bar_dirty_ = logged_dirty_ = false;
}

const Metrics& LoggerConnector::callback_metrics() {
  if (callback_dirty_) {
    callback_metrics_ = to_host(callback_values_);
    callback_dirty_ = false;
  }
  return callback_metrics_;
}

const Metrics& LoggerConnector::logged_metrics() {
  if (logged_dirty_) {
    logged_metrics_ = to_host(logged_values_);
    logged_dirty_ = false;
  }
  return logged_metrics_;
}

const Metrics& LoggerConnector::progress_bar_metrics() {
  if (progress_bar_dirty_) {
    progress_bar_metrics_ = to_host(progress_bar_values_);
    progress_bar_dirty_ = false;
  }
  return progress_bar_metrics_;
}

Metrics LoggerConnector::to_host(const std::map<std::string, torch::Tensor>& tensors) {
  Metrics out;
  if (tensors.empty()) return out;
  ++host_reads_;
  // One transfer for all values: a single host sync instead of one per metric.
  std::vector<torch::Tensor> parts;
  parts.reserve(tensors.size());
  for (const auto& [_, t] : tensors) parts.push_back(t.to(torch::kDouble).reshape({1}));
  auto host = torch::cat(parts).to(torch::kCPU);
  auto* data = host.data_ptr<double>();
  size_t i = 0;
  for (const auto& [key, _] : tensors) out[key] = data[i++];
  return out;
}

}  // namespace fulgur
