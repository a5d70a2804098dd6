#pragma once
// A string option that must be one of a few names (a reduction, a mode).
#include <initializer_list>
#include <string>

namespace fulgur::metrics {

// ConfigError "Metric(option="value") is not valid; choose "a", "b" or "c"" unless `value` is
// one of `valid`.
void check_choice(const std::string& metric, const std::string& option, const std::string& value,
                  std::initializer_list<const char*> valid);

}  // namespace fulgur::metrics
