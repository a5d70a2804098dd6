#pragma once
// CheckpointConnector: what goes into a checkpoint and how it comes back. `dump` gathers the
// Trainer's state in Lightning's layout; `restore_model` puts a checkpoint's weights (and the
// Module's on_load_checkpoint) back, checking every name and shape before touching the model.
#include <string>

#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

class Module;
class Trainer;

class CheckpointConnector {
 public:
  // The Lightning version whose checkpoint layout fulgur writes.
  static constexpr const char* kLightningVersion = "2.6.0";

  explicit CheckpointConnector(Trainer& trainer) : trainer_(trainer) {}
  CheckpointDict dump(bool weights_only);
  // Loads `path` through the Strategy and restores the Module's weights from it.
  // Raises CheckpointError (missing, corrupt, foreign, mismatched), before changing anything.
  void restore_model(const std::string& path, bool strict = true);

  // Module weights as the checkpoint's `state_dict`: named_parameters then named_buffers.
  static c10::impl::GenericDict module_state_dict(const Module& module);
  static void load_module_state_dict(Module& module, const c10::impl::GenericDict& state,
                                     bool strict, const std::string& source);

 private:
  Trainer& trainer_;
};

}  // namespace fulgur
