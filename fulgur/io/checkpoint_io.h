#pragma once
// CheckpointIO: moves a checkpoint dict between memory and storage. It knows nothing of what
// the dict holds. Saves must be atomic: a reader sees the old file or the whole new one.
#include <string>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

namespace fulgur {

// A checkpoint: string keys to IValues, written with torch::pickle_save (Python reads it with
// torch.load as a plain dict).
using CheckpointDict = c10::impl::GenericDict;
CheckpointDict make_checkpoint_dict();

class CheckpointIO {
 public:
  virtual ~CheckpointIO() = default;
  virtual std::string name() const = 0;
  virtual void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) = 0;
  // Raises CheckpointError for a missing, truncated or foreign file.
  virtual CheckpointDict load_checkpoint(const std::string& path) = 0;
  virtual void remove_checkpoint(const std::string& path) = 0;
  // Waits for pending asynchronous saves (nothing to do for synchronous IO).
  virtual void teardown() {}
};

}  // namespace fulgur
