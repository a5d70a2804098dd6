#include "fulgur/cli/logger_registry.h"

#include "fulgur/loggers/csv_logger.h"
#include "fulgur/loggers/tensorboard_logger.h"

namespace fulgur {
namespace {

// The init args Lightning's file loggers share, and those only some of them have (found by
// member name), so that another logger's options struct registers in one line.
template <typename Options>
void bind_file_logger(OptionSchema& a, Options& o) {
  a.add("save_dir", o.save_dir, "root folder of the runs");
  a.add("name", o.name, "experiment folder under save_dir");
  a.add("version", o.version, "run number (null: one more than the highest version_N)");
  a.add("prefix", o.prefix, "written before every metric name, joined with '-'");
  if constexpr (requires { o.flush_logs_every_n_steps; }) {
    a.add("flush_logs_every_n_steps", o.flush_logs_every_n_steps,
          "write buffered rows every N log calls");
  }
  if constexpr (requires { o.default_hp_metric; }) {
    a.add("default_hp_metric", o.default_hp_metric,
          "log hp_metric = -1 with hyperparameters logged without metrics");
  }
  if constexpr (requires { o.max_queue; }) {
    a.add("max_queue", o.max_queue, "events buffered before a write");
  }
  if constexpr (requires { o.flush_secs; }) {
    a.add("flush_secs", o.flush_secs, "seconds after which the next event writes the buffer");
  }
  if constexpr (requires { o.filename_suffix; }) {
    a.add("filename_suffix", o.filename_suffix, "appended to the event file's name");
  }
}

template <typename L, typename Options>
std::shared_ptr<Logger> make_logger(const Options& options) {
  return std::make_shared<L>(options);
}

}  // namespace

ComponentRegistry<Logger>& logger_registry() {
  static ComponentRegistry<Logger>* registry = [] {
    auto* r = new ComponentRegistry<Logger>("logger");
    r->add<CSVLoggerOptions>(
        "CSVLogger", "metrics.csv and hparams.yaml in <save_dir>/<name>/version_N",
        bind_file_logger<CSVLoggerOptions>, make_logger<CSVLogger, CSVLoggerOptions>);
    r->add<TensorBoardLoggerOptions>(
        "TensorBoardLogger", "TensorBoard event files and hparams.yaml in <save_dir>/<name>/version_N",
        bind_file_logger<TensorBoardLoggerOptions>, make_logger<TensorBoardLogger, TensorBoardLoggerOptions>);
    return r;
  }();
  return *registry;
}

}  // namespace fulgur
