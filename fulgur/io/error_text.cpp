#include "fulgur/io/error_text.h"

#include <c10/util/Exception.h>

namespace fulgur {

std::string error_text(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  const std::string text = c10_error != nullptr ? c10_error->what_without_backtrace() : error.what();
  return text.substr(0, text.find('\n'));
}

}  // namespace fulgur
