#include "fulgur/warnings.h"

#include <iostream>

namespace fulgur {

void warn(const std::string& message) { std::cerr << "fulgur: warning: " << message << std::endl; }

}  // namespace fulgur
