#include "fulgur/callbacks/on_exception_checkpoint.h"

#include <filesystem>

#include "fulgur/errors.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

OnExceptionCheckpoint::OnExceptionCheckpoint(OnExceptionCheckpointOptions options) {
  if (options.dirpath.empty() || options.filename.empty()) {
    throw ConfigError(
        "OnExceptionCheckpoint needs a dirpath and a filename, e.g. {.dirpath = \"checkpoints\"}");
  }
  ckpt_path_ = (std::filesystem::path(options.dirpath) / (options.filename + ".ckpt")).string();
}

void OnExceptionCheckpoint::on_exception(Trainer& trainer, Module&, const std::exception&) {
  // Only fit has training state worth resuming.
  if (trainer.fn() != TrainerFn::Fitting) return;
  trainer.save_checkpoint(ckpt_path_);
}

void OnExceptionCheckpoint::teardown(Trainer& trainer, Module&, const std::string& stage) {
  if (stage == "fit") trainer.strategy().remove_checkpoint(ckpt_path_);
}

}  // namespace fulgur
