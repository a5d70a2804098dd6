#include "fulgur/tuner/hparam_access.h"

#include <fmt/format.h>

#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"

namespace fulgur {

bool has_hparam(const Module& module, const DataModule* datamodule, const std::string& name) {
  return get_hparam(module, datamodule, name).has_value();
}

std::optional<HParamValue> get_hparam(const Module& module, const DataModule* datamodule,
                                      const std::string& name) {
  if (auto it = module.hparams().find(name); it != module.hparams().end()) return it->second;
  if (datamodule != nullptr) {
    if (auto it = datamodule->hparams().find(name); it != datamodule->hparams().end()) {
      return it->second;
    }
  }
  return std::nullopt;
}

void set_hparam(Module& module, DataModule* datamodule, const std::string& name,
                const HParamValue& value) {
  bool found = false;
  if (module.hparams().contains(name)) {
    HParams hparams = module.hparams();
    hparams[name] = value;
    module.save_hyperparameters(std::move(hparams));
    found = true;
  }
  if (datamodule != nullptr && datamodule->hparams().contains(name)) {
    HParams hparams = datamodule->hparams();
    hparams[name] = value;
    datamodule->save_hyperparameters(std::move(hparams));
    found = true;
  }
  if (!found) {
    throw ConfigError(fmt::format(
        "{} is not among the hyperparameters of the Module{}: add it with save_hyperparameters",
        name, datamodule != nullptr ? " or the DataModule" : ""));
  }
}

}  // namespace fulgur
