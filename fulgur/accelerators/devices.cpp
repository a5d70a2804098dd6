#include "fulgur/accelerators/devices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fulgur {

bool Devices::is_auto() const {
  const auto* text = std::get_if<std::string>(&value);
  return text != nullptr && *text == "auto";
}

std::string Devices::to_string() const {
  if (const auto* count = std::get_if<int>(&value)) return std::to_string(*count);
  if (const auto* text = std::get_if<std::string>(&value)) return "\"" + *text + "\"";
  const auto& ids = std::get<std::vector<int>>(value);
  return fmt::format("[{}]", fmt::join(ids, ", "));
}

}  // namespace fulgur
