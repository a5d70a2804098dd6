#pragma once
// fulgur::Profiler — Lightning's Profiler: times named actions (every hook, the training batch
// and epoch, each batch fetch, checkpoint saves) and reports them at the end of each stage.
// `Trainer({.profiler = "simple"})` or a Profiler instance; none by default, and then nothing
// is timed and no action name is built.
//
// Action names are Lightning's: "[Callback]ModelCheckpoint.on_train_batch_end",
// "[LightningModule]Net.on_fit_start", "[Strategy]SingleDeviceStrategy.training_step",
// "[LightningDataModule]MNIST.setup", "run_training_epoch", "run_training_batch",
// "[_TrainingEpochLoop].train_dataloader_next", "[_EvaluationLoop].val_next", "save_checkpoint".
#include <optional>
#include <string>
#include <type_traits>

namespace fulgur {

struct ProfilerOptions {
  // Where `filename`'s report goes; "" = the Trainer's log_dir.
  std::string dirpath;
  // Report to <dirpath>/<stage>-<filename>[-<local_rank>].txt (appended); "" = print it.
  std::string filename;
};

class Profiler {
 public:
  explicit Profiler(ProfilerOptions options = {}) : options_(std::move(options)) {}
  virtual ~Profiler() = default;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  virtual void start(const std::string& action) = 0;
  virtual void stop(const std::string& action) = 0;
  // The report; "" when there is nothing to say.
  virtual std::string summary() const { return ""; }

  // At each stage's start (Lightning's setup): the stage's name ("fit", "validate", ...), the
  // local rank when there are several processes, and the Trainer's log_dir.
  virtual void setup(const std::string& stage, std::optional<int> local_rank,
                     const std::string& log_dir);
  // At each stage's successful end: writes summary() to the file, or prints it on local rank 0.
  void describe();

  // The report's file for the current stage, or "" when it is printed.
  std::string report_path() const;
  const std::string& stage() const { return stage_; }

 private:
  ProfilerOptions options_;
  std::string stage_;
  std::optional<int> local_rank_;
  std::string log_dir_;
};

// Times an action for its own lifetime. With a null profiler nothing happens: the name (a
// literal, or a function that builds it) is not even made, so the loops always construct one.
class ProfiledAction {
 public:
  ProfiledAction(Profiler* profiler, const char* action) : profiler_(profiler) {
    if (profiler_ != nullptr) begin(action);
  }
  template <typename Name, typename = std::enable_if_t<std::is_invocable_r_v<std::string, Name>>>
  ProfiledAction(Profiler* profiler, Name&& name) : profiler_(profiler) {
    if (profiler_ != nullptr) begin(name());
  }
  ~ProfiledAction();
  ProfiledAction(const ProfiledAction&) = delete;
  ProfiledAction& operator=(const ProfiledAction&) = delete;

 private:
  void begin(std::string action);
  Profiler* profiler_;
  std::string action_;
};

}  // namespace fulgur
