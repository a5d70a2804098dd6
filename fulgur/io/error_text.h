#pragma once
// One line of an exception's message for CheckpointError texts: c10 errors carry a C++
// backtrace in what(), and a user needs the first line of the message only.
#include <exception>
#include <string>

namespace fulgur {

std::string error_text(const std::exception& error);

}  // namespace fulgur
