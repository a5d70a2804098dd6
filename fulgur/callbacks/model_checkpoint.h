#pragma once
// ModelCheckpoint: saves checkpoints while fitting, with Lightning's options and file names.
// Without `monitor` it keeps the latest checkpoint (save_top_k=1); with `monitor` it keeps the
// `save_top_k` best by `mode` (NaN is always worst). `filename` is a template:
// "{epoch}-{step}" renders "epoch=2-step=300", "{val_loss:.2f}" renders "val_loss=0.12".
// Files are written through the Strategy (rank 0) and never half-written; names that collide
// get "-v1", "-v2", ... Default directory: <log_dir>/checkpoints; a given dirpath is made absolute
// ("~" expanded), as Lightning. The file a fit resumed from is never removed. The triggers
// every_n_train_steps, every_n_epochs and train_time_interval are mutually exclusive, as in
// Lightning.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/callbacks/save_last.h"

namespace fulgur {

struct ModelCheckpointOptions {
  std::string dirpath;   // "" = <logger's log_dir>/checkpoints, or <default_root_dir>/checkpoints
  std::string filename;  // "" = "{epoch}-{step}"
  std::string monitor;   // "" = none: keep the latest
  std::string mode = "min";
  bool verbose = false;  // a line per monitored save or miss, as Lightning's
  // As Lightning 2.6: last.ckpt follows each step a checkpoint is saved at (true), or links to
  // the newest checkpoint at every save (link); a fit that saved nothing writes it at its end.
  // An existing last.ckpt this callback did not write is kept: the new one is last-v1.ckpt.
  SaveLast save_last;
  int save_top_k = 1;  // -1 all, 0 none
  // When fit fails with an exception: a checkpoint named by `filename` (and last), unless this
  // step is saved already.
  bool save_on_exception = false;
  bool save_weights_only = false;
  bool auto_insert_metric_name = true;
  std::optional<int64_t> every_n_train_steps;
  std::optional<int64_t> every_n_epochs;  // unset: 1 unless another trigger is set
  // Save at the first training batch end after this much time since the last save.
  std::optional<std::chrono::duration<double>> train_time_interval;
  std::optional<bool> save_on_train_epoch_end;
  bool enable_version_counter = true;
};

class ModelCheckpoint : public Callback {
 public:
  static constexpr const char* kLastName = "last";
  static constexpr const char* kExtension = ".ckpt";

  explicit ModelCheckpoint(ModelCheckpointOptions options = {});
  std::string name() const override { return "ModelCheckpoint"; }
  std::string state_key() const override;
  bool is_checkpointing() const override { return true; }

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;
  void on_train_start(Trainer& trainer, Module& module) override;
  void on_train_batch_end(Trainer& trainer, Module& module, const torch::Tensor&, Batch&,
                          int64_t batch_idx) override;
  void on_train_epoch_end(Trainer& trainer, Module& module) override;
  void on_validation_end(Trainer& trainer, Module& module) override;
  void on_train_end(Trainer& trainer, Module& module) override;
  void on_exception(Trainer& trainer, Module& module, const std::exception& error) override;
  c10::IValue state_dict() override;
  void load_state_dict(const c10::IValue& state) override;

  // The file name (without directory) `filename` renders for these metrics.
  std::string format_checkpoint_name(const std::map<std::string, double>& metrics,
                                     int version = 0) const;
  const std::string& dirpath() const { return dirpath_; }
  const std::string& best_model_path() const { return best_model_path_; }
  std::optional<double> best_model_score() const { return best_model_score_; }
  const std::string& last_model_path() const { return last_model_path_; }
  const std::map<std::string, double>& best_k_models() const { return best_k_models_; }
  const ModelCheckpointOptions& options() const { return options_; }

 private:
  bool should_skip(Trainer& trainer) const;
  bool save_on_train_epoch_end(Trainer& trainer) const;
  bool epoch_due(Trainer& trainer) const;
  // What a save writes: top-k (when due) and last, always or only after a top-k save.
  enum class Last { kAlways, kAfterASave };
  void save(Trainer& trainer, bool top_k, Last last);
  void save_top_k(Trainer& trainer, const std::map<std::string, double>& metrics);
  // Saves last under the name rank 0 chose (every rank must take part).
  void save_last(Trainer& trainer);
  // The name last goes under on this rank.
  std::string last_path() const;
  void save_last_at(Trainer& trainer, const std::string& path);
  void write(Trainer& trainer, const std::string& path);
  std::string unused_path(const std::map<std::string, double>& metrics,
                          const std::string& replaceable) const;
  bool better(double candidate, double reference) const;
  bool should_remove(Trainer& trainer, const std::string& previous) const;

  ModelCheckpointOptions options_;
  int64_t every_n_epochs_ = 1;
  std::string dirpath_;
  std::map<std::string, double> best_k_models_;
  std::string best_model_path_;
  std::optional<double> best_model_score_;
  std::string kth_best_model_path_;
  std::string last_model_path_;
  std::string last_checkpoint_saved_;  // the file this fit wrote last ("" before the first)
  std::vector<std::string> insertion_order_;  // best_k_models_'s keys, oldest first
  // 0, as Lightning: no save before the first optimizer step.
  int64_t last_global_step_saved_ = 0;
  bool defer_save_until_validation_ = false;
  std::optional<double> current_score_;
  double kth_value_;  // +inf in min mode, -inf in max mode, until k are kept
  std::chrono::steady_clock::time_point last_time_checked_;
};

}  // namespace fulgur
