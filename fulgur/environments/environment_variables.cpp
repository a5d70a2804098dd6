#include "fulgur/environments/environment_variables.h"

#include <fmt/format.h>

#include <cstdlib>
#include <exception>

#include "fulgur/errors.h"

namespace fulgur::env {

std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int get_int(const char* name, int fallback, int minimum) {
  const auto text = get(name);
  if (!text) return fallback;
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size() || value < minimum) {
    throw ConfigError(fmt::format(
        "environment variable {}=\"{}\" is not valid; it must be an integer >= {} (or unset)",
        name, *text, minimum));
  }
  return value;
}

int require_int(const char* name, int minimum, const char* environment) {
  if (!get(name)) {
    throw ConfigError(fmt::format(
        "environment variable {} is not set, but the other variables say that {} started this "
        "process; start it through {} or unset them",
        name, environment, environment));
  }
  return get_int(name, 0, minimum);
}

}  // namespace fulgur::env
