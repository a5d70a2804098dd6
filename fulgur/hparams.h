#pragma once
// Hyperparameters as Lightning records them (`save_hyperparameters`): named scalars written to
// hparams.yaml and to the checkpoint's `hyper_parameters`.
#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace fulgur {

using HParamValue = std::variant<bool, int64_t, double, std::string>;
using HParams = std::map<std::string, HParamValue>;

std::string to_string(const HParamValue& value);

}  // namespace fulgur
