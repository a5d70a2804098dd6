#pragma once
// Warnings (Lightning's rank_zero_warn): something works but probably not as the user meant.
// Printed to stderr as "fulgur: warning: <message>"; on ranks other than 0 the caller skips it.
#include <string>

namespace fulgur {

void warn(const std::string& message);

}  // namespace fulgur
