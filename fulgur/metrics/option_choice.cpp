#include "fulgur/metrics/option_choice.h"

#include <fmt/format.h>

#include <algorithm>

#include "fulgur/errors.h"

namespace fulgur::metrics {

void check_choice(const std::string& metric, const std::string& option, const std::string& value,
                  std::initializer_list<const char*> valid) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return;
  std::string names;
  for (const auto* name = valid.begin(); name != valid.end(); ++name) {
    if (name != valid.begin()) names += name + 1 == valid.end() ? " or " : ", ";
    names += fmt::format("\"{}\"", *name);
  }
  throw ConfigError(
      fmt::format("{}({}=\"{}\") is not valid; choose {}", metric, option, value, names));
}

}  // namespace fulgur::metrics
