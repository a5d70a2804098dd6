#pragma once
// CheckpointConnector: what goes into a checkpoint and how it comes back. `dump` gathers the
// Trainer's state in Lightning's layout; `restore_model` puts a checkpoint's weights back for
// validate/test/predict; `restore_training` puts everything back so that fit continues exactly
// where the checkpoint was written. Every restore checks the whole checkpoint against the model,
// optimizers and schedulers before it changes any of them (with one exception, param groups
// that a finetuning callback adds back: see restore_training).
#include <optional>
#include <string>
#include <vector>

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
  // For fit(ckpt_path), in two parts around on_fit_start as Lightning's: restore_training,
  // after configure_optimizers, restores the model, the DataModule, the callbacks, the precision
  // plugin and the loops (counters, the data loader's position, the generators' states);
  // restore_optimizers_and_schedulers, after on_fit_start, the optimizers and the LR schedulers.
  // (Lightning restores the loops after on_fit_start too; here on_fit_start sees the resumed
  // epoch.)
  // restore_training checks those too, unless a saved optimizer has more param groups than
  // the optimizer now: a finetuning callback adds them back in on_fit_start, so then they are
  // checked after it.
  void restore_training(const std::string& path);
  // Does nothing unless restore_training ran since the last call.
  void restore_optimizers_and_schedulers();

  // Module weights as the checkpoint's `state_dict`: named_parameters then named_buffers.
  static c10::impl::GenericDict module_state_dict(const torch::nn::Module& module);
  // The Module's parameter and buffer names that `state` lacks, and the names in `state` the
  // Module lacks (PyTorch's missing_keys and unexpected_keys), each in its own order.
  struct KeyDifferences {
    std::vector<std::string> missing;
    std::vector<std::string> unexpected;
  };
  static KeyDifferences key_differences(const torch::nn::Module& module,
                                        const c10::impl::GenericDict& state);
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
  void check_optimizers_and_schedulers(const c10::List<c10::IValue>& optimizer_states,
                                       const c10::List<c10::IValue>& scheduler_states,
                                       const std::string& path) const;

  // What restore_training left for restore_optimizers_and_schedulers.
  struct PendingStates {
    std::string path;
    c10::List<c10::IValue> optimizers;
    c10::List<c10::IValue> schedulers;
  };
  Trainer& trainer_;
  std::optional<PendingStates> pending_;
};

}  // namespace fulgur
