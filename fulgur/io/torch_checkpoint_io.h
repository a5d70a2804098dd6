#pragma once
// Synchronous CheckpointIO on the local file system with torch::pickle_save / pickle_load.
// Writes go to a temporary file in the same directory (<path>.tmp-<pid>), are flushed, then
// renamed into place, and the directory is synced. The first save into a directory removes the
// temporaries that processes no longer alive left there (a crash in the middle of a save).
#include <mutex>
#include <set>
#include <string>

#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

class TorchCheckpointIO : public CheckpointIO {
 public:
  std::string name() const override { return "TorchCheckpointIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) override;
  CheckpointDict load_checkpoint(const std::string& path) override;
  void remove_checkpoint(const std::string& path) override;

  // Removes <name>.tmp-<pid> files in `dir` whose process is gone; returns how many.
  static int remove_stale_temporaries(const std::string& dir);

 private:
  std::mutex cleaned_mutex_;
  std::set<std::string> cleaned_dirs_;
};

}  // namespace fulgur
