#include "fulgur/io/state_fields.h"

#include <cmath>

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

CheckpointDict state_dict_of(const c10::IValue& state, const std::string& owner) {
  if (!state.isGenericDict()) {
    throw CheckpointError(fmt::format("the {} state in the checkpoint is a {}, not a dict", owner,
                                      state.tagKind()));
  }
  return state.toGenericDict();
}

double number_field(const CheckpointDict& state, const std::string& key, const std::string& owner) {
  if (!state.contains(key)) {
    throw CheckpointError(
        fmt::format("the {} state in the checkpoint has no \"{}\"", owner, key));
  }
  const auto& value = state.at(key);
  if (value.isDouble()) return value.toDouble();
  if (value.isInt()) return static_cast<double>(value.toInt());
  if (value.isTensor() && value.toTensor().numel() == 1) return value.toTensor().item<double>();
  throw CheckpointError(fmt::format("the {} state's \"{}\" in the checkpoint is a {}, not a number",
                                    owner, key, value.tagKind()));
}

int64_t integer_field(const CheckpointDict& state, const std::string& key,
                      const std::string& owner) {
  const double value = number_field(state, key, owner);
  if (value != std::trunc(value)) {
    throw CheckpointError(fmt::format(
        "the {} state's \"{}\" in the checkpoint is {}, not a whole number", owner, key, value));
  }
  return static_cast<int64_t>(value);
}

}  // namespace fulgur
