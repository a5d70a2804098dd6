#include "fulgur/trainer_options.h"

#include <fmt/format.h>

#include "fulgur/loggers/logger.h"

namespace fulgur {

std::string BatchCount::to_string() const {
  if (is_fraction()) {
    // Always with a decimal point: "1.0" is a fraction, "1" a count.
    const double f = std::get<double>(value);
    return f == static_cast<double>(static_cast<int64_t>(f)) ? fmt::format("{:.1f}", f)
                                                             : fmt::format("{}", f);
  }
  return std::to_string(std::get<int64_t>(value));
}

LoggerFlag::LoggerFlag(std::vector<std::shared_ptr<Logger>> list)
    : enabled(!list.empty()), loggers(std::move(list)) {}

}  // namespace fulgur
