#include "fulgur/tuner/tuning_trial.h"

#include <new>

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include "fulgur/data/data_loader.h"
#include "fulgur/errors.h"
#include "fulgur/loops/evaluation_loop.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/prediction_loop.h"
#include "fulgur/module.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

void check_tunable(const Trainer& trainer, const std::string& what) {
  if (trainer.world_size() > 1 || trainer.strategy().name().starts_with("ddp")) {
    throw ConfigError(fmt::format(
        "{} does not support distributed strategies (strategy \"{}\"): tune in one process, "
        "then train with the value it found",
        what, trainer.strategy().name()));
  }
}

TrainerOptions trial_options(const TrainerOptions& user,
                             std::vector<std::shared_ptr<Callback>> callbacks) {
  TrainerOptions o = user;
  o.logger = false;
  o.callbacks = std::move(callbacks);
  o.enable_checkpointing = false;
  o.enable_progress_bar = false;
  o.enable_model_summary = false;
  o.max_time.reset();  // the Timer is a callback, and a search's callbacks are its own
  o.seed.reset();      // seeding again would change the user's random streams
  o.profiler = {};     // a trial's report would interrupt the search's output
  // Lightning searches from on_fit_start (or the Tuner, before fit), so before the sanity check.
  o.num_sanity_val_steps = 0;
  return o;
}

int64_t fit_trial(const TrainerOptions& options, Module& module, const TuningData& data) {
  const auto& given = data.train_dataloader;
  const auto given_state = given ? given->state() : DataLoaderState{};
  Trainer trial(options);
  trial.skip_module_callbacks();
  auto rewind = [&] {
    if (given) given->load_state(given_state);
    const auto& used = trial.fit_loop().train_dataloader();
    if (used && used != given) used->load_state({});
  };
  try {
    if (data.datamodule != nullptr) {
      trial.fit(module, *data.datamodule);
    } else {
      trial.fit(module, data.train_dataloader, data.val_dataloader);
    }
  } catch (...) {
    rewind();
    throw;
  }
  rewind();
  const auto& used = trial.fit_loop().train_dataloader();
  return used ? used->dataset_size() : 0;
}

int64_t evaluation_trial(const TrainerOptions& options, Module& module, const TuningData& data,
                         TrainerFn stage) {
  Trainer trial(options);
  trial.skip_module_callbacks();
  DataModule* dm = data.datamodule;
  const std::optional<std::string> no_checkpoint;
  std::shared_ptr<DataLoader> used;
  switch (stage) {
    case TrainerFn::Validating:
      dm != nullptr ? trial.validate(module, *dm, no_checkpoint, /*verbose=*/false)
                    : trial.validate(module, nullptr, no_checkpoint, /*verbose=*/false);
      used = trial.validate_loop().dataloader();
      break;
    case TrainerFn::Testing:
      dm != nullptr ? trial.test(module, *dm, no_checkpoint, /*verbose=*/false)
                    : trial.test(module, nullptr, no_checkpoint, /*verbose=*/false);
      used = trial.test_loop().dataloader();
      break;
    case TrainerFn::Predicting:
      dm != nullptr ? trial.predict(module, *dm, no_checkpoint, /*return_predictions=*/false)
                    : trial.predict(module, nullptr, no_checkpoint, /*return_predictions=*/false);
      used = trial.predict_loop().dataloader();
      break;
    case TrainerFn::Fitting:
      return fit_trial(options, module, data);
  }
  return used ? used->dataset_size() : 0;
}

ModuleSnapshot::ModuleSnapshot(Module& module) : module_(module) {
  torch::NoGradGuard no_grad;
  for (const auto& p : module.named_parameters()) parameters_[p.key()] = p.value().detach().clone();
  for (const auto& b : module.named_buffers()) buffers_[b.key()] = b.value().detach().clone();
}

void ModuleSnapshot::restore() {
  torch::NoGradGuard no_grad;
  for (auto& p : module_.named_parameters()) {
    if (auto it = parameters_.find(p.key()); it != parameters_.end()) {
      p.value().set_data(it->second);
      p.value().mutable_grad() = torch::Tensor();
    }
  }
  for (auto& b : module_.named_buffers()) {
    if (auto it = buffers_.find(b.key()); it != buffers_.end()) b.value().set_data(it->second);
  }
}

bool is_oom_error(const std::exception& error) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&error) != nullptr) return true;
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return true;
  const std::string message = error.what();
  for (const char* sign : {"CUDA out of memory", "DefaultCPUAllocator: not enough memory",
                           "DefaultCPUAllocator: can't allocate memory",
                           "CUDNN_STATUS_NOT_SUPPORTED", "CUDA error: out of memory"}) {
    if (message.find(sign) != std::string::npos) return true;
  }
  return false;
}

}  // namespace fulgur
