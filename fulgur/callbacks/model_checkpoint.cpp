#include "fulgur/callbacks/model_checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <typeinfo>
#include <utility>

#include <unistd.h>

#include <c10/util/Type.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/loggers/logger.h"
#include "fulgur/loops/evaluation_loop.h"
#include "fulgur/module.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace fs = std::filesystem;
namespace {

// Rank 0's metrics on every rank: the file names and the top-k decisions must be the same
// everywhere, also for values each rank logged without sync_dist. Written as
// "<key length> <key> <value in hex float>" lines, so keys may hold any character and values
// cross exactly.
std::map<std::string, double> rank_zero_metrics(Strategy& strategy,
                                                std::map<std::string, double> metrics) {
  if (strategy.world_size() == 1) return metrics;
  std::string text;
  for (const auto& [key, value] : metrics) text += fmt::format("{} {} {:a}\n", key.size(), key, value);
  text = strategy.broadcast(text, 0);
  metrics.clear();
  for (size_t at = 0; at < text.size();) {
    size_t length_end = text.find(' ', at);
    const size_t length = std::stoul(text.substr(at, length_end - at));
    std::string key = text.substr(length_end + 1, length);
    const size_t value_start = length_end + 1 + length + 1;
    const size_t line_end = text.find('\n', value_start);
    metrics[std::move(key)] = std::strtod(text.c_str() + value_start, nullptr);
    at = line_end + 1;
  }
  return metrics;
}

// Rank 0's choice of a file name, on every rank: another rank could look for the name after
// rank 0 wrote the file and take "-v1" instead.
std::string rank_zero_path(Trainer& trainer, const std::string& path) {
  return trainer.strategy().broadcast(path, 0);
}

// A name taken by a file, a directory or a link (also one whose target is gone).
bool occupied(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

// Points `link` at `target` with a relative symbolic link (a copy where the file system has
// none), made beside it and renamed into place: a reader sees the old last or the new one.
void link_checkpoint(Trainer& trainer, const std::string& target, const std::string& link) {
  const fs::path to = fs::absolute(target), at = fs::absolute(link);
  if (!trainer.is_global_zero() || to == at) return;
  const fs::path tmp = at.string() + fmt::format(".tmp-{}", ::getpid());
  std::error_code ec;
  fs::remove(tmp, ec);
  fs::create_symlink(to.lexically_relative(at.parent_path()), tmp, ec);
  if (ec) fs::copy_file(to, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec && fs::is_directory(fs::symlink_status(at))) fs::remove_all(at, ec);
  if (!ec) fs::rename(tmp, at, ec);
  if (ec) {
    fs::remove(tmp);
    throw CheckpointError(
        fmt::format("cannot link checkpoint {} to {}: {}", link, target, ec.message()));
  }
}

}  // namespace

ModelCheckpoint::ModelCheckpoint(ModelCheckpointOptions options) : options_(std::move(options)) {
  if (options_.mode != "min" && options_.mode != "max") {
    throw ConfigError("ModelCheckpoint(mode=\"" + options_.mode +
                      "\") is not valid; choose \"min\" or \"max\"");
  }
  if (options_.save_top_k < -1) {
    throw ConfigError(fmt::format("ModelCheckpoint(save_top_k={}) must be >= -1",
                                  options_.save_top_k));
  }
  if (options_.monitor.empty() && options_.save_top_k > 1) {
    throw ConfigError(fmt::format(
        "ModelCheckpoint(save_top_k={}, monitor=None) is not a valid configuration: there is no "
        "quantity to rank the top k by; set monitor",
        options_.save_top_k));
  }
  if (options_.every_n_train_steps && *options_.every_n_train_steps < 0) {
    throw ConfigError("ModelCheckpoint(every_n_train_steps) must be >= 0");
  }
  if (options_.every_n_epochs && *options_.every_n_epochs < 0) {
    throw ConfigError("ModelCheckpoint(every_n_epochs) must be >= 0");
  }
  if (options_.train_time_interval && options_.train_time_interval->count() <= 0) {
    throw ConfigError("ModelCheckpoint(train_time_interval) must be a positive duration");
  }
  const bool other_trigger = options_.every_n_train_steps || options_.train_time_interval;
  every_n_epochs_ = options_.every_n_epochs.value_or(other_trigger ? 0 : 1);
  const int triggers = (options_.every_n_train_steps.value_or(0) > 0) + (every_n_epochs_ > 0) +
                       options_.train_time_interval.has_value();
  if (triggers > 1) {
    throw ConfigError(fmt::format(
        "ModelCheckpoint: the combination of every_n_train_steps={}, every_n_epochs={} and "
        "train_time_interval={} should be mutually exclusive",
        options_.every_n_train_steps.value_or(0), every_n_epochs_,
        options_.train_time_interval
            ? fmt::format("{}s", options_.train_time_interval->count())
            : std::string("None")));
  }
  if (options_.filename.empty()) options_.filename = "{epoch}-{step}";
  kth_value_ = options_.mode == "min" ? INFINITY : -INFINITY;
}

namespace {

// Python's repr of a datetime.timedelta, as Lightning's state key shows it.
std::string timedelta_repr(std::chrono::duration<double> interval) {
  const auto total_us = static_cast<int64_t>(std::llround(interval.count() * 1e6));
  const int64_t days = total_us / 86'400'000'000LL;
  const int64_t seconds = total_us / 1'000'000 % 86'400;
  const int64_t micros = total_us % 1'000'000;
  std::vector<std::string> parts;
  if (days) parts.push_back(fmt::format("days={}", days));
  if (seconds) parts.push_back(fmt::format("seconds={}", seconds));
  if (micros) parts.push_back(fmt::format("microseconds={}", micros));
  return fmt::format("datetime.timedelta({})", fmt::join(parts, ", "));
}

}  // namespace

std::string ModelCheckpoint::state_key() const {
  const auto monitor = options_.monitor.empty() ? "None" : "'" + options_.monitor + "'";
  const auto interval = options_.train_time_interval
                            ? timedelta_repr(*options_.train_time_interval)
                            : std::string("None");
  return fmt::format(
      "ModelCheckpoint{{'monitor': {}, 'mode': '{}', 'every_n_train_steps': {}, "
      "'every_n_epochs': {}, 'train_time_interval': {}}}",
      monitor, options_.mode, options_.every_n_train_steps.value_or(0), every_n_epochs_, interval);
}

void ModelCheckpoint::on_train_start(Trainer&, Module&) {
  last_time_checked_ = std::chrono::steady_clock::now();
}

void ModelCheckpoint::setup(Trainer& trainer, Module&, const std::string& stage) {
  if (!options_.dirpath.empty()) {
    // As Lightning's os.path.realpath(os.path.expanduser(dirpath)): the paths it reports are
    // absolute and stay valid when the working directory changes.
    std::string path = options_.dirpath;
    const char* home = std::getenv("HOME");
    if (home && (path == "~" || path.rfind("~/", 0) == 0)) path = home + path.substr(1);
    dirpath_ = fs::weakly_canonical(fs::absolute(path)).string();
  } else if (trainer.logger() != nullptr) {
    // The Trainer's log_dir: under DDP, rank 0's on every rank.
    dirpath_ = (fs::path(trainer.log_dir()) / "checkpoints").string();
  } else {
    dirpath_ = (fs::path(trainer.default_root_dir()) / "checkpoints").string();
  }
  // As Lightning: files already there may be mistaken for this fit's (or removed by its top-k).
  std::error_code ec;
  if (stage == "fit" && trainer.is_global_zero() && options_.save_top_k != 0 &&
      fs::is_directory(dirpath_, ec) && !fs::is_empty(dirpath_, ec)) {
    warn(fmt::format("Checkpoint directory {} exists and is not empty.", dirpath_));
  }
}

std::string ModelCheckpoint::format_checkpoint_name(const std::map<std::string, double>& metrics,
                                                    int version) const {
  // Groups like {epoch}, {val_loss:.2f}; metric names may contain '/', '.', '-'.
  static const std::regex group(R"(\{([^{}:]+)(?::([^{}]*))?\})");
  std::string out;
  auto begin = std::sregex_iterator(options_.filename.begin(), options_.filename.end(), group);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out += options_.filename.substr(last, m.position() - last);
    last = m.position() + m.length();
    const std::string key = m[1];
    const std::string spec = m[2].matched ? m[2].str() : "";
    auto found = metrics.find(key);
    const bool missing = found == metrics.end();
    const double value = missing ? 0.0 : found->second;
    std::string rendered;
    // As Lightning: a missing metric is the integer 0 ("{missing:d}" works), epoch and step are
    // integers, other metrics Python floats, so a plain "{val_loss}" of 1 reads "1.0".
    const bool integral = key == "epoch" || key == "step" ||
                          (missing && spec.find_first_of(".eEfFgG%") == std::string::npos);
    try {
      rendered = integral ? fmt::format(fmt::runtime("{:" + spec + "}"),
                                        static_cast<int64_t>(value))
                          : fmt::format(fmt::runtime("{:" + spec + "}"), value);
      if (!integral && spec.empty() &&
          rendered.find_first_not_of("-0123456789") == std::string::npos) {
        rendered += ".0";
      }
    } catch (const fmt::format_error& e) {
      throw ConfigError(fmt::format("ModelCheckpoint(filename=\"{}\"): bad format \"{}\" for {}: {}",
                                    options_.filename, spec, key, e.what()));
    }
    out += options_.auto_insert_metric_name ? key + "=" + rendered : rendered;
  }
  out += options_.filename.substr(last);
  if (version > 0) out += fmt::format("-v{}", version);
  return out;
}

bool ModelCheckpoint::should_skip(Trainer& trainer) const {
  return trainer.options().fast_dev_run.batches > 0 || trainer.fn() != TrainerFn::Fitting ||
         trainer.sanity_checking() || last_global_step_saved_ == trainer.global_step();
}

bool ModelCheckpoint::save_on_train_epoch_end(Trainer& trainer) const {
  if (options_.save_on_train_epoch_end) return *options_.save_on_train_epoch_end;
  // Lightning's rule: validation every epoch, once, at its end (or no validation) → save at
  // the epoch's end, after the Module's and EarlyStopping's on_train_epoch_end, so the
  // checkpoint holds their state of this epoch and resumes at the next one. Validation less
  // often than every epoch or several times per epoch → save at validation's end.
  if (trainer.options().check_val_every_n_epoch.value_or(0) != 1) return false;
  if (trainer.num_val_batches() == 0) return true;
  const auto& interval = trainer.options().val_check_interval;
  return interval.is_fraction() && std::get<double>(interval.value) == 1.0;
}

bool ModelCheckpoint::epoch_due(Trainer& trainer) const {
  return every_n_epochs_ > 0 && (trainer.current_epoch() + 1) % every_n_epochs_ == 0;
}

void ModelCheckpoint::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                                         int64_t) {
  if (should_skip(trainer)) return;
  const int64_t n = options_.every_n_train_steps.value_or(0);
  const bool step_due = n > 0 && trainer.global_step() % n == 0;
  bool time_due = false;
  if (options_.train_time_interval) {
    const auto now = std::chrono::steady_clock::now();
    time_due = now - last_time_checked_ >= *options_.train_time_interval;
    // Ranks' clocks differ: rank 0 decides for all, so every rank takes part in the save.
    time_due = trainer.strategy().broadcast_decision(time_due);
    if (time_due) last_time_checked_ = now;
  }
  if (!step_due && !time_due) return;
  // As Lightning: a step save before the monitored metric exists (no validation yet) waits for
  // validation instead of failing the fit.
  if (!options_.monitor.empty() && !trainer.callback_metrics().count(options_.monitor)) {
    defer_save_until_validation_ = true;
    return;
  }
  save(trainer, /*top_k=*/true, Last::kAlways);
}

void ModelCheckpoint::on_train_epoch_end(Trainer& trainer, Module&) {
  if (should_skip(trainer) || !save_on_train_epoch_end(trainer)) return;
  save(trainer, /*top_k=*/epoch_due(trainer), Last::kAfterASave);
}

void ModelCheckpoint::on_validation_end(Trainer& trainer, Module&) {
  if (should_skip(trainer) || save_on_train_epoch_end(trainer)) return;
  if (std::exchange(defer_save_until_validation_, false)) {
    save(trainer, /*top_k=*/true, Last::kAlways);
  } else {
    save(trainer, /*top_k=*/epoch_due(trainer), Last::kAfterASave);
  }
}

void ModelCheckpoint::on_train_end(Trainer& trainer, Module&) {
  // As Lightning 2.6: a fit that saved nothing still leaves its last checkpoint (fast_dev_run
  // saves none).
  if (!options_.save_last || !last_checkpoint_saved_.empty() ||
      trainer.options().fast_dev_run.batches > 0) {
    return;
  }
  save_last(trainer);
  trainer.strategy().barrier("ModelCheckpoint.save");
}

void ModelCheckpoint::on_exception(Trainer& trainer, Module&, const std::exception& error) {
  // Only fit has training state worth resuming (as OnExceptionCheckpoint). Only this rank may
  // have failed: nothing here waits for the others.
  if (!options_.save_on_exception || trainer.fn() != TrainerFn::Fitting ||
      trainer.options().fast_dev_run.batches > 0 || trainer.sanity_checking() ||
      last_global_step_saved_ == trainer.global_step()) {
    return;
  }
  auto metrics = trainer.callback_metrics();
  metrics["epoch"] = static_cast<double>(trainer.current_epoch());
  metrics["step"] = static_cast<double>(trainer.global_step());
  const auto path = (fs::path(dirpath_) / (format_checkpoint_name(metrics) + kExtension)).string();
  write(trainer, path);
  if (options_.save_last) save_last_at(trainer, last_path());
  if (trainer.is_global_zero()) {
    fmt::print("An {} was raised with message: {}, saved checkpoint to {}\n",
               c10::demangle(typeid(error).name()), error.what(), path);
  }
}

void ModelCheckpoint::save(Trainer& trainer, bool top_k, Last last) {
  if (!top_k && !options_.save_last) return;
  if (top_k) {
    auto metrics = rank_zero_metrics(trainer.strategy(), trainer.callback_metrics());
    metrics["epoch"] = static_cast<double>(trainer.current_epoch());
    metrics["step"] = static_cast<double>(trainer.global_step());
    save_top_k(trainer, metrics);
  }
  // As Lightning 2.6: at an epoch's or a validation's end, last follows only a checkpoint saved
  // at this step, unless it is a link (relinked to the newest checkpoint each time).
  if (last == Last::kAlways || last_global_step_saved_ == trainer.global_step() ||
      (options_.save_last.is_link() && !last_checkpoint_saved_.empty())) {
    save_last(trainer);
  }
  trainer.strategy().barrier("ModelCheckpoint.save");
}

void ModelCheckpoint::write(Trainer& trainer, const std::string& path) {
  // Set before writing, so the checkpoint knows it was saved at this step and a resumed fit does
  // not save the same step again (as "-v1").
  last_global_step_saved_ = trainer.global_step();
  last_checkpoint_saved_ = path;
  trainer.save_checkpoint(path, options_.save_weights_only);
}

std::string ModelCheckpoint::unused_path(const std::map<std::string, double>& metrics,
                                         const std::string& replaceable) const {
  auto path = (fs::path(dirpath_) / (format_checkpoint_name(metrics) + kExtension)).string();
  if (!options_.enable_version_counter) return path;
  for (int v = 1; fs::exists(path) && path != replaceable; ++v) {
    path = (fs::path(dirpath_) / (format_checkpoint_name(metrics, v) + kExtension)).string();
  }
  return path;
}

bool ModelCheckpoint::better(double candidate, double reference) const {
  return options_.mode == "min" ? candidate < reference : candidate > reference;
}

void ModelCheckpoint::save_top_k(Trainer& trainer, const std::map<std::string, double>& metrics) {
  if (options_.save_top_k == 0) return;
  if (options_.monitor.empty()) {
    // No ranking: the newest checkpoint replaces the previous one (unless all are kept).
    const auto path = rank_zero_path(trainer, unused_path(metrics, best_model_path_));
    const auto previous = best_model_path_;
    best_model_path_ = path;
    write(trainer, path);
    if (options_.save_top_k == 1 && !previous.empty() && previous != path &&
        should_remove(trainer, previous)) {
      trainer.strategy().remove_checkpoint(previous);
    }
    return;
  }
  auto found = metrics.find(options_.monitor);
  if (found == metrics.end()) {
    std::string keys;
    for (const auto& [k, _] : metrics) keys += (keys.empty() ? "" : ", ") + k;
    const auto message = fmt::format(
        "ModelCheckpoint(monitor=\"{}\") could not find the monitored key in the logged metrics: "
        "[{}]. Did you call log(\"{}\", value) in the Module?",
        options_.monitor, keys, options_.monitor);
    // As Lightning: only an error once validation has run; before that the metric may still come.
    if (trainer.validate_loop().has_run()) throw MisconfigurationError(message);
    if (trainer.is_global_zero()) warn(message);
    return;
  }
  double current = found->second;
  current_score_ = current;
  if (std::isnan(current)) current = options_.mode == "min" ? INFINITY : -INFINITY;
  const bool full = options_.save_top_k != -1 &&
                    static_cast<int>(best_k_models_.size()) >= options_.save_top_k;
  if (full && !better(current, best_k_models_.at(kth_best_model_path_))) {
    if (options_.verbose && trainer.is_global_zero()) {
      fmt::print("Epoch {}, global step {}: '{}' was not in top {}\n", trainer.current_epoch(),
                 trainer.global_step(), options_.monitor, options_.save_top_k);
    }
    return;
  }

  const std::string replaced = full ? kth_best_model_path_ : std::string();
  const auto path = rank_zero_path(trainer, unused_path(metrics, replaced));
  if (full) best_k_models_.erase(kth_best_model_path_);
  best_k_models_[path] = current;
  insertion_order_.erase(std::remove(insertion_order_.begin(), insertion_order_.end(), replaced),
                         insertion_order_.end());
  insertion_order_.push_back(path);
  // kth = the worst kept, best = the best kept; ties go to the oldest, as Python's max/min over
  // Lightning's insertion-ordered dict. kth is only known once k are kept.
  const bool now_full = options_.save_top_k != -1 &&
                        static_cast<int>(best_k_models_.size()) == options_.save_top_k;
  std::string worst = insertion_order_.front(), best = insertion_order_.front();
  for (const auto& p : insertion_order_) {
    if (better(best_k_models_.at(worst), best_k_models_.at(p))) worst = p;
    if (better(best_k_models_.at(p), best_k_models_.at(best))) best = p;
  }
  if (now_full) {
    kth_best_model_path_ = worst;
    kth_value_ = best_k_models_.at(worst);
  }
  best_model_path_ = best;
  best_model_score_ = best_k_models_.at(best_model_path_);
  if (options_.verbose && trainer.is_global_zero()) {
    fmt::print("Epoch {}, global step {}: '{}' reached {:.5f} (best {:.5f}), saving model to "
               "'{}' as top {}\n",
               trainer.current_epoch(), trainer.global_step(), options_.monitor, current,
               *best_model_score_, path,
               options_.save_top_k == -1 ? best_k_models_.size() : size_t(options_.save_top_k));
  }
  write(trainer, path);
  if (!replaced.empty() && replaced != path && should_remove(trainer, replaced)) {
    trainer.strategy().remove_checkpoint(replaced);
  }
}

bool ModelCheckpoint::should_remove(Trainer& trainer, const std::string& previous) const {
  // As Lightning: never the checkpoint this fit resumed from (the path as given: resuming from
  // a last.ckpt link keeps the link, not the checkpoint it pointed at), never a file outside
  // dirpath.
  const auto absolute = [](const std::string& p) { return fs::absolute(p).lexically_normal(); };
  if (trainer.ckpt_path() && absolute(*trainer.ckpt_path()) == absolute(previous)) return false;
  const auto canonical = [](const std::string& p) { return fs::weakly_canonical(fs::absolute(p)); };
  const auto file = canonical(previous);
  const auto dir = canonical(dirpath_);
  const auto rel = file.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

void ModelCheckpoint::save_last(Trainer& trainer) {
  if (!options_.save_last) return;
  save_last_at(trainer, rank_zero_path(trainer, last_path()));
}

std::string ModelCheckpoint::last_path() const {
  const auto named = [&](int version) {
    const auto suffix = version > 0 ? fmt::format("-v{}", version) : std::string();
    return (fs::path(dirpath_) / (kLastName + suffix + kExtension)).string();
  };
  // As Lightning: a last checkpoint this callback did not write (another run's) is kept.
  std::string path = named(0);
  for (int v = 1; options_.enable_version_counter && occupied(path) && path != last_model_path_;
       ++v) {
    path = named(v);
  }
  return path;
}

void ModelCheckpoint::save_last_at(Trainer& trainer, const std::string& path) {
  // Set before saving: it is part of the state the checkpoint holds.
  const std::string previous = std::exchange(last_model_path_, path);
  if (options_.save_last.is_link() && !last_checkpoint_saved_.empty() &&
      options_.save_top_k != 0) {
    link_checkpoint(trainer, last_checkpoint_saved_, path);
  } else {
    write(trainer, path);
  }
  if (!previous.empty() && previous != path && should_remove(trainer, previous)) {
    trainer.strategy().remove_checkpoint(previous);
  }
}

c10::IValue ModelCheckpoint::state_dict() {
  auto d = make_checkpoint_dict();
  d.insert("monitor", options_.monitor.empty() ? c10::IValue() : c10::IValue(options_.monitor));
  d.insert("best_model_score",
           best_model_score_ ? c10::IValue(*best_model_score_) : c10::IValue());
  d.insert("best_model_path", best_model_path_);
  d.insert("kth_best_model_path", kth_best_model_path_);
  d.insert("last_model_path", last_model_path_);
  d.insert("dirpath", dirpath_);
  // Lightning's keys and types: scores as 0-dim tensors, best_k_models in insertion order.
  d.insert("current_score",
           current_score_ ? c10::IValue(torch::tensor(*current_score_)) : c10::IValue());
  d.insert("kth_value", torch::tensor(kth_value_));
  c10::Dict<std::string, double> best_k;
  for (const auto& p : insertion_order_) {
    if (best_k_models_.count(p)) best_k.insert(p, best_k_models_.at(p));
  }
  for (const auto& [p, s] : best_k_models_) {
    if (!best_k.contains(p)) best_k.insert(p, s);
  }
  d.insert("best_k_models", best_k);
  d.insert("last_global_step_saved", last_global_step_saved_);
  return d;
}

void ModelCheckpoint::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) return;
  auto d = state.toGenericDict();
  auto str = [&](const char* key) {
    return d.contains(key) && d.at(key).isString() ? d.at(key).toStringRef() : std::string();
  };
  best_model_path_ = str("best_model_path");
  // As Lightning: the ranking only carries over when the checkpoints live in the same directory.
  if (str("dirpath") != dirpath_) {
    warn(fmt::format("The dirpath has changed from '{}' to '{}', therefore `best_model_score`, "
                     "`kth_best_model_path`, `kth_value`, `last_model_path` and `best_k_models` "
                     "won't be reloaded. Only `best_model_path` will be reloaded.",
                     str("dirpath"), dirpath_));
    return;
  }
  kth_best_model_path_ = str("kth_best_model_path");
  last_model_path_ = str("last_model_path");
  if (d.contains("last_global_step_saved") && d.at("last_global_step_saved").isInt()) {
    last_global_step_saved_ = d.at("last_global_step_saved").toInt();
  }
  // Lightning writes the score as a tensor, older fulgur as a float: both load.
  if (d.contains("best_model_score")) {
    const auto& v = d.at("best_model_score");
    if (v.isTensor() && v.toTensor().numel() == 1) best_model_score_ = v.toTensor().item<double>();
    if (v.isDouble()) best_model_score_ = v.toDouble();
  }
  if (d.contains("kth_value")) {
    const auto& v = d.at("kth_value");
    if (v.isTensor() && v.toTensor().numel() == 1) kth_value_ = v.toTensor().item<double>();
    if (v.isDouble()) kth_value_ = v.toDouble();
  }
  if (d.contains("best_k_models") && d.at("best_k_models").isGenericDict()) {
    best_k_models_.clear();
    insertion_order_.clear();
    for (const auto& entry : d.at("best_k_models").toGenericDict()) {
      const auto& v = entry.value();
      if (!v.isDouble() && !v.isInt() && !(v.isTensor() && v.toTensor().numel() == 1)) continue;
      best_k_models_[entry.key().toStringRef()] =
          v.isTensor() ? v.toTensor().item<double>() : v.isInt() ? v.toInt() : v.toDouble();
      insertion_order_.push_back(entry.key().toStringRef());
    }
  }
}

}  // namespace fulgur
