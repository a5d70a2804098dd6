#pragma once
// Lightning's LightningModule.load_from_checkpoint for C++: build the Module, let it see the
// checkpoint (on_load_checkpoint, e.g. to migrate old keys), load the checkpoint's `state_dict`
// and move it to `map_location`. A Module whose constructor takes `const fulgur::HParams&`
// first gets the checkpoint's `hyper_parameters` (with `options.hparams_file`'s and
// `options.hparams` over them), as Lightning passes them to `__init__`; other constructor
// arguments follow the options.
//
//   auto model = fulgur::load_from_checkpoint<MyModel>("ckpt/epoch=4-step=50.ckpt");
//   auto on_gpu = fulgur::load_from_checkpoint<MyModel>(path, {.map_location = torch::kCUDA}, 64);
#include <torch/types.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "fulgur/hparams.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/module.h"

namespace fulgur {

struct LoadFromCheckpointOptions {
  // Where the Module goes after loading; nullopt: where the saved tensors load (the CPU).
  std::optional<torch::Device> map_location;
  // nullopt: the Module's strict_loading() (true unless it says otherwise), as Lightning.
  std::optional<bool> strict;
  // A hparams.yaml (the loggers write one) over the saved hyper_parameters, Lightning's
  // hparams_file; empty: none.
  std::string hparams_file;
  // Over both (Lightning's **kwargs), for an HParams constructor.
  HParams hparams;
};

// The checkpoint at `path` with a "state_dict", or CheckpointError (missing, corrupt, not a
// model checkpoint).
CheckpointDict read_model_checkpoint(const std::string& path);
// The checkpoint's "hyper_parameters" (none: empty), then options.hparams_file's and
// options.hparams over them; CheckpointError for a saved value that is not a bool, int, float or
// str, ConfigError for a bad hparams_file.
HParams checkpoint_hparams(const CheckpointDict& checkpoint,
                           const LoadFromCheckpointOptions& options, const std::string& path);
// configure_model, on_load_checkpoint, the weights (CheckpointError naming `path` for missing,
// unexpected or misshapen keys; when not strict, a warning for each kind of key that did not
// match), then map_location. ConfigError for strict=true on a Module with strict_loading false.
void restore_from_checkpoint(Module& module, const CheckpointDict& checkpoint,
                             const LoadFromCheckpointOptions& options, const std::string& path);

template <class M, class... Args>
std::shared_ptr<M> load_from_checkpoint(const std::string& path,
                                        const LoadFromCheckpointOptions& options = {},
                                        Args&&... args) {
  static_assert(std::is_base_of_v<Module, M>, "load_from_checkpoint builds a fulgur::Module");
  const CheckpointDict checkpoint = read_model_checkpoint(path);
  std::shared_ptr<M> module;
  if constexpr (std::is_constructible_v<M, const HParams&, Args&&...>) {
    module = std::make_shared<M>(checkpoint_hparams(checkpoint, options, path),
                                 std::forward<Args>(args)...);
  } else {
    module = std::make_shared<M>(std::forward<Args>(args)...);
  }
  restore_from_checkpoint(*module, checkpoint, options, path);
  return module;
}

}  // namespace fulgur
