#pragma once
// Synchronous CheckpointIO on the local file system with torch::pickle_save / pickle_load.
// Writes go to a temporary file in the same directory, are flushed, then renamed into place.
#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

class TorchCheckpointIO : public CheckpointIO {
 public:
  std::string name() const override { return "TorchCheckpointIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) override;
  CheckpointDict load_checkpoint(const std::string& path) override;
  void remove_checkpoint(const std::string& path) override;
};

}  // namespace fulgur
