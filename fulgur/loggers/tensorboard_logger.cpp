#include "fulgur/loggers/tensorboard_logger.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/loggers/hparams_yaml.h"
#include "fulgur/loggers/tensorboard/event_file_writer.h"
#include "fulgur/loggers/tensorboard/summaries.h"

namespace fulgur {
namespace {

constexpr const char* kOwner = "TensorBoardLogger";
constexpr const char* kHParamsFile = "hparams.yaml";
constexpr const char* kDefaultHpMetric = "hp_metric";

}  // namespace

TensorBoardLogger::TensorBoardLogger(TensorBoardLoggerOptions options)
    : options_(std::move(options)),
      dir_(kOwner, options_.save_dir, options_.name, options_.version) {
  if (options_.max_queue < 1) {
    throw ConfigError(fmt::format(
        "TensorBoardLogger(max_queue={}): must be at least 1 (1 writes every event at once)",
        options_.max_queue));
  }
  if (!(options_.flush_secs >= 0) || std::isinf(options_.flush_secs)) {
    throw ConfigError(fmt::format(
        "TensorBoardLogger(flush_secs={}): must be a finite number of seconds >= 0 (0 writes "
        "every event at once)",
        options_.flush_secs));
  }
}

TensorBoardLogger::~TensorBoardLogger() {
  // A logger that never wrote leaves no directory behind.
  if (!writer_) return;
  try {
    save();
  } catch (const std::exception& e) {
    // A destructor cannot throw; losing events silently would be worse than a line on stderr.
    std::cerr << "fulgur: " << e.what() << '\n';
  }
}

std::string TensorBoardLogger::event_file() const { return writer_ ? writer_->path() : ""; }

tensorboard::EventFileWriter& TensorBoardLogger::writer() {
  if (!writer_) {
    dir_.create();
    writer_ = std::make_unique<tensorboard::EventFileWriter>(
        dir_.path(),
        tensorboard::EventFileWriterOptions{.max_queue = options_.max_queue,
                                            .flush_secs = options_.flush_secs,
                                            .filename_suffix = options_.filename_suffix},
        kOwner);
  }
  return *writer_;
}

void TensorBoardLogger::log_metrics(const std::map<std::string, double>& metrics, int64_t step) {
  tensorboard::EventFileWriter& events = writer();
  if (metrics.empty()) return;
  std::vector<std::pair<std::string, double>> scalars;
  scalars.reserve(metrics.size());
  for (const auto& [key, value] : metrics) {
    scalars.emplace_back(options_.prefix.empty() ? key : options_.prefix + "-" + key, value);
  }
  events.add(tensorboard::scalars_event(tensorboard::wall_time_now(), step, scalars));
}

void TensorBoardLogger::log_hyperparams(const HParams& params) { log_hyperparams(params, {}); }

void TensorBoardLogger::log_hyperparams(const HParams& params,
                                        const std::map<std::string, double>& metrics) {
  tensorboard::EventFileWriter& events = writer();
  for (const auto& [key, value] : params) hparams_.insert_or_assign(key, value);
  write_hparams_yaml(std::filesystem::path(log_dir()) / kHParamsFile, hparams_, kOwner);
  hparams_written_ = true;

  std::map<std::string, double> hp_metrics = metrics;
  if (hp_metrics.empty() && options_.default_hp_metric) hp_metrics[kDefaultHpMetric] = -1;
  // As Lightning: no metrics, no hparams summaries (TensorBoard would show an empty session).
  if (hp_metrics.empty()) return;
  log_metrics(hp_metrics, 0);
  // The experiment names the metrics without the prefix, as Lightning passes them.
  std::vector<std::string> tags;
  tags.reserve(hp_metrics.size());
  for (const auto& [key, value] : hp_metrics) tags.push_back(key);
  for (const std::string& event :
       tensorboard::hparams_events(tensorboard::wall_time_now(), params, tags)) {
    events.add(event);
  }
}

void TensorBoardLogger::log_text(const std::string& tag, const std::string& text, int64_t step) {
  writer().add(tensorboard::text_event(tensorboard::wall_time_now(), step, tag, text));
}

void TensorBoardLogger::save() {
  if (!writer_) return;
  writer_->flush();
  // Lightning's run directories always hold an hparams.yaml, "{}" when nothing was logged.
  if (!hparams_written_) {
    write_hparams_yaml(std::filesystem::path(log_dir()) / kHParamsFile, hparams_, kOwner);
    hparams_written_ = true;
  }
}

void TensorBoardLogger::finalize(const std::string& /*status*/) { save(); }

}  // namespace fulgur
