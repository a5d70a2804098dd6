#include "fulgur/callbacks/progress_bar.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fulgur/loggers/logger.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

std::string clock(double seconds) {
  const auto s = static_cast<int64_t>(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{:02}:{:02}", s / 60, s % 60);
}

// ", v_num=N, key=value, ...": the logger's version (Lightning's v_num) and the prog_bar
// metrics; reading them is the bar's one host sync per redraw.
std::string metrics_text(Trainer& trainer) {
  std::string text;
  if (const Logger* logger = trainer.logger()) {
    const std::string version = logger->version();
    const std::string prefix = "version_";
    text += ", v_num=" +
            (version.rfind(prefix, 0) == 0 ? version.substr(prefix.size()) : version);
  }
  for (const auto& [k, v] : trainer.progress_bar_metrics()) text += fmt::format(", {}={:.4g}", k, v);
  return text;
}

// The terminal's width in columns; 0 when unknown (not a terminal, or it does not say).
size_t terminal_columns(std::FILE* out) {
  struct winsize size {};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0) return size.ws_col;
  return 0;
}

}  // namespace

ProgressBar::ProgressBar(std::FILE* out, int interactive)
    : out_(out), interactive_(interactive < 0 ? ::isatty(::fileno(out)) != 0 : interactive != 0) {}

void ProgressBar::start(const std::string& label, int64_t total, bool with_metrics) {
  bar_ = {label, total, 0, with_metrics, std::chrono::steady_clock::now()};
  last_draw_ = bar_.started;
}

void ProgressBar::update(Trainer& trainer, int64_t done, bool force) {
  bar_.done = done;
  if (!interactive_ || !trainer.is_global_zero()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - bar_.started).count();
  const double rate = elapsed > 0 ? bar_.done / elapsed : 0;
  // tqdm's layout, as Lightning's bar: "Epoch 0:  45%|#########           | 423/938
  // [00:05<00:06, 80.10it/s, v_num=0, train_loss=0.512]".
  const std::string remaining =
      rate > 0 && bar_.total >= bar_.done ? clock((bar_.total - bar_.done) / rate) : "?";
  const std::string head =
      fmt::format("{}: {:3}%|", bar_.label, bar_.total > 0 ? 100 * bar_.done / bar_.total : 0);
  std::string tail = fmt::format("| {}/{} [{}<{}, {:.2f}it/s", bar_.done, bar_.total,
                                 clock(elapsed), remaining, rate);
  if (bar_.with_metrics) tail += metrics_text(trainer);
  tail += "]";
  // As tqdm: the bar shrinks to keep the line within the terminal, and what still does not fit
  // is cut, so the line never wraps (a wrapped line cannot be redrawn in place). The last
  // column stays free: writing into it wraps on some terminals.
  const size_t columns = terminal_columns(out_);
  size_t width = 20;
  if (columns > 0) {
    const size_t text = head.size() + tail.size() + 1;
    width = std::min(width, columns > text ? columns - text : 0);
  }
  const auto filled = static_cast<size_t>(
      bar_.total > 0 ? static_cast<double>(width) * bar_.done / bar_.total : 0);
  std::string line =
      "\r" + head + std::string(filled, '#') + std::string(width - filled, ' ') + tail;
  if (columns > 0 && line.size() > columns) line.resize(columns);  // "\r" + columns - 1
  line += "\x1b[K";
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
  line_open_ = true;
}

void ProgressBar::finish(Trainer& trainer) {
  if (!trainer.is_global_zero()) return;
  if (interactive_) {
    update(trainer, bar_.done, /*force=*/true);
    std::fputs("\n", out_);
    line_open_ = false;
  } else {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - bar_.started).count();
    std::string line = fmt::format("{}: {}/{} batches in {:.1f}s", bar_.label, bar_.done, bar_.total, elapsed);
    if (bar_.with_metrics) line += metrics_text(trainer);
    std::fputs((line + "\n").c_str(), out_);
  }
  std::fflush(out_);
}

void ProgressBar::print(Trainer& trainer, const std::string& text) {
  if (!trainer.is_global_zero()) return;
  const bool redraw = line_open_;
  // Over a drawn bar: back to the line's start, the text, the rest of the bar's line erased.
  const std::string line = redraw ? "\r" + text + "\x1b[K\n" : text + "\n";
  std::fputs(line.c_str(), out_);
  line_open_ = false;
  if (redraw) {
    update(trainer, bar_.done, /*force=*/true);
  } else {
    std::fflush(out_);
  }
}

void ProgressBar::on_train_epoch_start(Trainer& trainer, Module&) {
  start(fmt::format("Epoch {}", trainer.current_epoch()), trainer.num_training_batches(), true);
}

void ProgressBar::on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                                     int64_t batch_idx) {
  update(trainer, batch_idx + 1, false);
}

void ProgressBar::on_train_epoch_end(Trainer& trainer, Module&) { finish(trainer); }

void ProgressBar::on_validation_start(Trainer& trainer, Module&) {
  paused_epoch_bar_ = bar_;
  // The epoch's bar keeps its line; validation draws on the next one.
  if (line_open_ && trainer.is_global_zero()) {
    std::fputs("\n", out_);
    line_open_ = false;
  }
  int64_t total = trainer.num_val_batches();
  // The sanity check runs num_sanity_val_steps batches (-1: all of them).
  const int64_t sanity_steps = trainer.options().num_sanity_val_steps;
  if (trainer.sanity_checking() && sanity_steps >= 0) total = std::min(total, sanity_steps);
  start(trainer.sanity_checking() ? "Sanity Checking" : "Validation", total, false);
}

void ProgressBar::on_validation_batch_end(Trainer& trainer, Module&, Batch&, int64_t batch_idx) {
  update(trainer, batch_idx + 1, false);
}

void ProgressBar::on_validation_end(Trainer& trainer, Module&) {
  // A validation inside an epoch hands the line back to the epoch's bar.
  finish(trainer);
  bar_ = paused_epoch_bar_;
}

void ProgressBar::on_test_start(Trainer& trainer, Module&) {
  start("Testing", trainer.num_test_batches(), false);
}

void ProgressBar::on_test_batch_end(Trainer& trainer, Module&, Batch&, int64_t batch_idx) {
  update(trainer, batch_idx + 1, false);
}

void ProgressBar::on_test_end(Trainer& trainer, Module&) { finish(trainer); }

void ProgressBar::on_predict_start(Trainer& trainer, Module&) {
  start("Predicting", trainer.num_predict_batches(), false);
}

void ProgressBar::on_predict_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                                       int64_t batch_idx) {
  update(trainer, batch_idx + 1, false);
}

void ProgressBar::on_predict_end(Trainer& trainer, Module&) { finish(trainer); }

}  // namespace fulgur
