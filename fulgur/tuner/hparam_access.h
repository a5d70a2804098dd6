#pragma once
// Lightning's lightning_hasattr / lightning_getattr / lightning_setattr for fulgur, where a
// tunable value (the learning rate, the batch size) lives in the hyperparameters: the Module's
// hparams first, then the DataModule's.
#include <optional>
#include <string>

#include "fulgur/hparams.h"

namespace fulgur {

class DataModule;
class Module;

bool has_hparam(const Module& module, const DataModule* datamodule, const std::string& name);
// The first holder's value: the Module's, else the DataModule's; nullopt when neither has it.
std::optional<HParamValue> get_hparam(const Module& module, const DataModule* datamodule,
                                      const std::string& name);
// Sets `name` in every holder that has it (Lightning sets the Module's and the DataModule's);
// raises ConfigError when neither has it.
void set_hparam(Module& module, DataModule* datamodule, const std::string& name,
                const HParamValue& value);

}  // namespace fulgur
