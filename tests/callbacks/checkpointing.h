#pragma once
// Helpers of the checkpointing callbacks' tests: quiet options, a fresh directory per test, the
// files in one, and a Module whose val_loss follows a schedule, one value per epoch.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "trainer/recording.h"

namespace fulgur::testing {

// An empty directory under the system's temporary one; `name` must differ between tests, which
// run in parallel.
inline std::string fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / ("fulgur_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// The names of the files in `dir`, sorted; none when it does not exist.
inline std::vector<std::string> files_in(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Options with checkpointing (and the logger) as given, and nothing printed, no sanity check.
inline TrainerOptions checkpointing_only(TrainerOptions o) {
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  o.num_sanity_val_steps = 0;
  return o;
}

// Logs `losses[epoch]` as val_loss; 2 validation samples, `train_samples` training ones (batches
// of 2).
class ScheduledLoss : public RecordingModule {
 public:
  ScheduledLoss(Calls& calls, std::vector<double> losses, int64_t train_samples = 4)
      : RecordingModule(calls, train_samples, 2), losses_(std::move(losses)) {
    with_scheduler = false;
  }
  void validation_step(Batch&, int64_t) override {
    log("val_loss", losses_.at(static_cast<size_t>(current_epoch())));
  }

 private:
  std::vector<double> losses_;
};

}  // namespace fulgur::testing
