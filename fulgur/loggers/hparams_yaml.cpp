#include "fulgur/loggers/hparams_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/loggers/file_writes.h"

namespace fulgur {
namespace {

// Python's float repr made YAML 1.1 floats, as PyYAML writes them: "1.0" not "1",
// "1.0e-05" not "1e-05" (PyYAML would read the latter back as a string).
std::string yaml_double(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = fmt::format("{}", value);
  if (text.find('.') == std::string::npos) {
    size_t e = text.find('e');
    if (e == std::string::npos)
      text += ".0";
    else
      text.insert(e, ".0");
  }
  return text;
}

// A string YAML would read back as a string when written plain; anything else is quoted, so
// "true", "1e3", "" or "a: b" stay strings in yaml-cpp and PyYAML alike.
bool is_plain_string(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
    if (!ok) return false;
  }
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == word) return false;
  }
  return true;
}

void emit_string(YAML::Emitter& out, const std::string& text) {
  if (is_plain_string(text))
    out << text;
  else
    out << YAML::DoubleQuoted << text;
}

std::string to_yaml(const HParams& params, std::string_view owner) {
  if (params.empty()) return "{}\n";
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [key, value] : params) {
    out << YAML::Key;
    emit_string(out, key);
    out << YAML::Value;
    std::visit(
        [&out](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, bool>)
            out << (v ? "true" : "false");
          else if constexpr (std::is_same_v<V, int64_t>)
            out << fmt::format("{}", v);
          else if constexpr (std::is_same_v<V, double>)
            out << yaml_double(v);
          else
            emit_string(out, v);
        },
        value);
  }
  out << YAML::EndMap;
  if (!out.good()) {
    throw Error(fmt::format("{} could not write hparams.yaml: {}", owner, out.GetLastError()));
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace

void write_hparams_yaml(const std::filesystem::path& path, const HParams& params,
                        std::string_view owner) {
  replace_file(path, to_yaml(params, owner), owner);
}

}  // namespace fulgur
