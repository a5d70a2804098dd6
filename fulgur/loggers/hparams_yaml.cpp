#include "fulgur/loggers/hparams_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

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

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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
  const std::string lower = lowered(text);
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

// A plain scalar's value under YAML 1.1's resolution, which PyYAML uses.
HParamValue resolve_plain(const std::string& text) {
  const std::string lower = lowered(text);
  for (const char* word : {"true", "yes", "on"}) {
    if (lower == word) return true;
  }
  for (const char* word : {"false", "no", "off"}) {
    if (lower == word) return false;
  }
  if (lower == ".inf" || lower == "+.inf") return std::numeric_limits<double>::infinity();
  if (lower == "-.inf") return -std::numeric_limits<double>::infinity();
  if (lower == ".nan") return std::numeric_limits<double>::quiet_NaN();
  std::string_view digits = text;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  const char* end = digits.data() + digits.size();
  int64_t integer = 0;
  if (auto [at, ec] = std::from_chars(digits.data(), end, integer);
      ec == std::errc() && at == end && !digits.empty()) {
    return integer;
  }
  // PyYAML's floats have a dot ("1.0", "1.0e-05"); "1e5" stays a string, as there.
  double real = 0.0;
  if (auto [at, ec] = std::from_chars(digits.data(), end, real);
      ec == std::errc() && at == end && text.find('.') != std::string::npos) {
    return real;
  }
  return text;
}

}  // namespace

HParams read_hparams_yaml(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError(fmt::format("hparams file not found: {}", path.string()));
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("cannot read hparams file {}: {}", path.string(), e.what()));
  }
  HParams params;
  if (root.IsNull()) return params;
  if (!root.IsMap()) {
    throw ConfigError(
        fmt::format("hparams file {} is not a map of names to values", path.string()));
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    if (!value.IsScalar()) {
      throw ConfigError(fmt::format("hparams file {}: \"{}\" is not a bool, int, float or str",
                                    path.string(), key));
    }
    // yaml-cpp tags a quoted scalar "!" and a plain one "?".
    params[key] = value.Tag() == "!" ? HParamValue(value.Scalar()) : resolve_plain(value.Scalar());
  }
  return params;
}

void write_hparams_yaml(const std::filesystem::path& path, const HParams& params,
                        std::string_view owner) {
  replace_file(path, to_yaml(params, owner), owner);
}

}  // namespace fulgur
