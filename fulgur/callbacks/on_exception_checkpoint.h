#pragma once
// OnExceptionCheckpoint (Lightning's): when fit fails with an exception, or stops on a signal,
// saves the state of the last finished batch to <dirpath>/<filename>.ckpt, so the run can resume
// from it with ckpt_path. A fit that ends normally removes that file at teardown.
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct OnExceptionCheckpointOptions {
  std::string dirpath;                    // required
  std::string filename = "on_exception";  // without ".ckpt"
};

class OnExceptionCheckpoint : public Callback {
 public:
  // Raises ConfigError for an empty dirpath or filename.
  explicit OnExceptionCheckpoint(OnExceptionCheckpointOptions options);
  std::string name() const override { return "OnExceptionCheckpoint"; }
  // Writes a checkpoint, so it runs after the other callbacks, like ModelCheckpoint.
  bool is_checkpointing() const override { return true; }

  void on_exception(Trainer& trainer, Module& module, const std::exception& error) override;
  void teardown(Trainer& trainer, Module& module, const std::string& stage) override;

  const std::string& ckpt_path() const { return ckpt_path_; }

 private:
  std::string ckpt_path_;
};

}  // namespace fulgur
