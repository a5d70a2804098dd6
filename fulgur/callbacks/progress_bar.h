#pragma once
// ProgressBar: what a person watches while training. On a terminal it redraws one line per
// stage at most 10 times a second (epoch, batch/total, elapsed<remaining, it/s, v_num and the
// `prog_bar` metrics; validation inside an epoch on the next line); when
// stdout is not a terminal it prints one plain line per finished epoch / evaluation instead.
// Rank 0 only. Added by default when `enable_progress_bar` is on.
#include <chrono>
#include <cstdio>
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

class ProgressBar : public Callback {
 public:
  // `interactive`: redraw in place; defaults to whether stdout is a terminal.
  explicit ProgressBar(std::FILE* out = stdout, int interactive = -1);
  std::string name() const override { return "ProgressBar"; }

  void on_train_epoch_start(Trainer& trainer, Module&) override;
  void on_train_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                          int64_t batch_idx) override;
  void on_train_epoch_end(Trainer& trainer, Module&) override;
  void on_validation_start(Trainer& trainer, Module&) override;
  void on_validation_batch_end(Trainer& trainer, Module&, Batch&, int64_t batch_idx) override;
  void on_validation_end(Trainer& trainer, Module&) override;
  void on_test_start(Trainer& trainer, Module&) override;
  void on_test_batch_end(Trainer& trainer, Module&, Batch&, int64_t batch_idx) override;
  void on_test_end(Trainer& trainer, Module&) override;
  void on_predict_start(Trainer& trainer, Module&) override;
  void on_predict_batch_end(Trainer& trainer, Module&, const torch::Tensor&, Batch&,
                            int64_t batch_idx) override;
  void on_predict_end(Trainer& trainer, Module&) override;

  // Lightning's progress_bar.print (tqdm.write): `text` on a line of its own; a bar being
  // drawn is drawn again below it. Module::print comes here.
  void print(Trainer& trainer, const std::string& text);

 private:
  void start(const std::string& label, int64_t total, bool with_metrics);
  void update(Trainer& trainer, int64_t done, bool force);
  void finish(Trainer& trainer);

  struct Bar {
    std::string label;
    int64_t total = 0;
    int64_t done = 0;
    bool with_metrics = false;
    std::chrono::steady_clock::time_point started;
  };
  std::FILE* out_;
  bool interactive_;
  Bar bar_;
  Bar paused_epoch_bar_;  // the epoch's bar while a validation inside it runs
  std::chrono::steady_clock::time_point last_draw_;
  bool line_open_ = false;  // a bar is drawn on the current line, not yet ended by "\n"
};

}  // namespace fulgur
