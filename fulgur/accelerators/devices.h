#pragma once
// The `devices` flag as a Lightning user writes it: "auto", an int (count, -1 = all), a string
// ("2", "-1", "0,1", "1,") or a list of ids. Converts implicitly, so
// `{.devices = 2}`, `{.devices = "0,1"}` and `{.devices = std::vector<int>{0, 1}}` all work.
#include <string>
#include <variant>
#include <vector>

namespace fulgur {

struct Devices {
  std::variant<std::string, int, std::vector<int>> value = std::string("auto");

  Devices() = default;
  Devices(int count) : value(count) {}
  Devices(const char* text) : value(std::string(text)) {}
  Devices(std::string text) : value(std::move(text)) {}
  Devices(std::vector<int> ids) : value(std::move(ids)) {}

  bool is_auto() const;
  // As the user wrote it, for error messages: 2, "0,1", [0, 1].
  std::string to_string() const;
};

}  // namespace fulgur
