#include "fulgur/hparams.h"

#include <fmt/format.h>

namespace fulgur {

std::string to_string(const HParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) return v ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::string>) return v;
        else return fmt::format("{}", v);
      },
      value);
}

}  // namespace fulgur
