#pragma once
// Text made safe for SVG/XML: character data or an attribute value in double quotes. Metric
// names come from files and users, so anything may arrive; the result always parses: markup
// characters are escaped, bytes that are not valid UTF-8 and characters XML 1.0 forbids
// (most control characters) become U+FFFD.
#include <string>
#include <string_view>

namespace fulgur::plot {

std::string xml_escape(std::string_view text);

// At most `max_chars` characters (code points) of already-valid UTF-8 `text`, with "…" as
// the last one when cut. Never splits a multi-byte character.
std::string truncate_utf8(std::string_view text, size_t max_chars);

}  // namespace fulgur::plot
