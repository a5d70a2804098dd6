#pragma once
// Reading a component's state back from a checkpoint (a callback's, the loss scaler's): the
// state must be a dict holding the expected keys with numbers as values; anything else is a
// CheckpointError that names the component and the key, never a c10 type error.
#include <cstdint>
#include <string>

#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

// `state` as a dict; `owner` names whose state it is ("EarlyStopping").
CheckpointDict state_dict_of(const c10::IValue& state, const std::string& owner);
// A number (int, float, or a one-element tensor, as Lightning saves some) under `key`.
double number_field(const CheckpointDict& state, const std::string& key, const std::string& owner);
int64_t integer_field(const CheckpointDict& state, const std::string& key,
                      const std::string& owner);

}  // namespace fulgur
