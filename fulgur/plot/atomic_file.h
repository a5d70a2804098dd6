#pragma once
// A whole file replaced in one step: written to a temporary file in the same directory,
// flushed to the disk and renamed over `path`. A reader (a browser reloading the chart) or a
// crash sees the old file or the new one, never half of one; a failed write leaves no
// temporary file behind.
#include <string>
#include <string_view>

namespace fulgur::plot {

// Raises fulgur::Error naming the file and the system's reason when it cannot be written.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace fulgur::plot
