#pragma once
// CheckpointConnector: what goes into a checkpoint and how it comes back. `dump` gathers the
// Trainer's state in Lightning's layout; `restore_model` puts a checkpoint's weights back for
// validate/test/predict; `restore_training` puts everything back so that fit continues exactly
// where the checkpoint was written. Every restore checks the whole checkpoint against the model,
// optimizers and schedulers before it changes any of them.
#include <string>

#include "fulgur/io/checkpoint_io.h"

namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace fulgur {

class Module;
class Trainer;

class CheckpointConnector {
 public:
  // The Lightning version whose checkpoint layout fulgur writes.
  static constexpr const char* kLightningVersion = "2.6.0";

  explicit CheckpointConnector(Trainer& trainer) : trainer_(trainer) {}
  CheckpointDict dump(bool weights_only);
  // For validate/test/predict(ckpt_path): loads `path` through the Strategy and restores what
  // every stage restores in Lightning: the Module's weights (strictly unless the Module's
  // strict_loading is off), the DataModule, the callbacks (on_load_checkpoint, load_state_dict)
  // and the precision plugin. Raises CheckpointError (missing, corrupt, foreign, mismatched)
  // before changing the weights.
  void restore_model(const std::string& path);
  // For fit(ckpt_path): after configure_optimizers, restores in Lightning's order the model,
  // the DataModule, the callbacks, the precision plugin, the loops (counters, the data loader's
  // position, the generators' states), the optimizers and the LR schedulers.
  void restore_training(const std::string& path);

  // Module weights as the checkpoint's `state_dict`: named_parameters then named_buffers.
  static c10::impl::GenericDict module_state_dict(const torch::nn::Module& module);
  // Raises CheckpointError naming `source` listing missing/unexpected keys (when strict) and
  // shape mismatches; changes nothing.
  static void check_module_state_dict(const torch::nn::Module& module,
                                      const c10::impl::GenericDict& state, bool strict,
                                      const std::string& source);
  static void load_module_state_dict(torch::nn::Module& module,
                                     const c10::impl::GenericDict& state, bool strict,
                                     const std::string& source);

 private:
  CheckpointDict load_model_checkpoint(const std::string& path);
  void restore_modules_and_callbacks(const CheckpointDict& checkpoint, const std::string& path);
  Trainer& trainer_;
};

}  // namespace fulgur
