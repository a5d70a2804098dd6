#pragma once
// The error a rank leaves for the launcher that started it, so that the launcher's message can
// say what failed and not only that it failed. The launcher names the file in the child's
// environment; a process started any other way has no such file and records nothing.
#include <string>

namespace fulgur::error_file {

// The variable that holds the path, set by fulgur's launcher for each rank it starts.
inline constexpr const char* kVariable = "FULGUR_ERROR_FILE";

// Writes `message` to the file named by FULGUR_ERROR_FILE, when set. Never throws.
void record(const std::string& message) noexcept;
// The message recorded at `path`, empty when none was.
std::string read(const std::string& path);

}  // namespace fulgur::error_file
