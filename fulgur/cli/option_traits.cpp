#include "fulgur/cli/option_traits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace fulgur {
namespace {

std::string trim(const std::string& text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// from_chars does not take a leading '+', which people do write ("+3").
std::string_view strip_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  return text;
}

template <typename Int>
Int parse_integer(const std::string& raw) {
  const std::string text = trim(raw);
  std::string_view view = strip_plus(text);
  Int value{};
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec == std::errc::result_out_of_range) throw OptionParseError("out of range");
  if (ec != std::errc() || end != view.data() + view.size() || view.empty()) {
    throw OptionParseError();
  }
  return value;
}

bool is_int_text(const std::string& text) {
  try {
    parse_integer<int64_t>(text);
    return true;
  } catch (const OptionParseError&) {
    return false;
  }
}

// "0,1", "1,", "3": ids or a count written as text, as Lightning accepts for `devices`.
bool is_id_list_text(const std::string& text) {
  if (text.empty() || text.front() == ',') return false;
  bool previous_comma = false;
  for (char c : text) {
    if (c == ',') {
      if (previous_comma) return false;
      previous_comma = true;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == ' ') {
      previous_comma = false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool is_null_word(const std::string& text) {
  const std::string t = trim(text);
  return t == "null" || t == "Null" || t == "NULL" || t == "None" || t == "~";
}

const std::string& require_text(const OptionText& text) {
  if (!text) throw OptionParseError("null is not allowed here");
  return *text;
}

std::vector<std::pair<std::string, std::string>> split_flow_map(const std::string& raw) {
  const std::string text = trim(raw);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    throw OptionParseError("write a map such as {0: 1, 4: 2}");
  }
  std::vector<std::pair<std::string, std::string>> items;
  const std::string body = trim(text.substr(1, text.size() - 2));
  if (body.empty()) return items;
  size_t start = 0;
  while (start <= body.size()) {
    const size_t comma = body.find(',', start);
    const std::string item =
        body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string::npos || trim(item.substr(0, colon)).empty() ||
        item.find_first_of("{}[]") != std::string::npos) {
      throw OptionParseError(fmt::format("'{}' is not a 'key: value' item", trim(item)));
    }
    items.emplace_back(trim(item.substr(0, colon)), trim(item.substr(colon + 1)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

bool parse_bool_text(const std::string& raw) {
  const std::string text = lower(trim(raw));
  if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
  if (text == "false" || text == "no" || text == "off" || text == "0") return false;
  throw OptionParseError();
}

int64_t parse_int_text(const std::string& text) { return parse_integer<int64_t>(text); }

uint64_t parse_uint_text(const std::string& text) {
  if (trim(text).starts_with('-')) throw OptionParseError("must not be negative");
  return parse_integer<uint64_t>(text);
}

double parse_float_text(const std::string& raw) {
  const std::string text = trim(raw);
  std::string_view view = strip_plus(text);
  double value = 0.0;
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec == std::errc::result_out_of_range) throw OptionParseError("out of range");
  if (ec != std::errc() || end != view.data() + view.size() || view.empty()) {
    throw OptionParseError();
  }
  if (!std::isfinite(value)) throw OptionParseError("must be a finite number");
  return value;
}

std::string render_float(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

int OptionTraits<int>::parse(const OptionText& text) {
  const int64_t value = parse_int_text(require_text(text));
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    throw OptionParseError("out of range");
  }
  return static_cast<int>(value);
}

BatchCount OptionTraits<BatchCount>::parse(const OptionText& text) {
  const std::string& value = require_text(text);
  if (is_int_text(value)) {
    const int64_t count = parse_int_text(value);
    if (count < 0) throw OptionParseError("a count of batches must not be negative");
    return BatchCount(count);
  }
  const double fraction = parse_float_text(value);
  if (fraction < 0.0 || fraction > 1.0) {
    throw OptionParseError("a fraction must lie in [0.0, 1.0]; write an integer for a count");
  }
  return BatchCount(fraction);
}

OptionText OptionTraits<BatchCount>::render(const BatchCount& value) {
  if (value.is_fraction()) return render_float(std::get<double>(value.value));
  return std::to_string(std::get<int64_t>(value.value));
}

Devices OptionTraits<Devices>::parse(const OptionText& text) {
  const std::string value = trim(require_text(text));
  const char* kReason = "use \"auto\", a count (-1 = all) or device ids such as 0,1 or [0, 1]";
  if (value == "auto") return Devices("auto");
  if (is_int_text(value)) {
    const int64_t count = parse_int_text(value);
    if (count < -1 || count > std::numeric_limits<int>::max()) throw OptionParseError(kReason);
    return Devices(static_cast<int>(count));
  }
  if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
    std::vector<int> ids;
    std::string body = trim(value.substr(1, value.size() - 2));
    size_t start = 0;
    while (!body.empty() && start <= body.size()) {
      size_t comma = body.find(',', start);
      std::string item =
          trim(body.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (!is_int_text(item)) throw OptionParseError(kReason);
      const int64_t id = parse_int_text(item);
      if (id < 0 || id > std::numeric_limits<int>::max()) throw OptionParseError(kReason);
      ids.push_back(static_cast<int>(id));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return Devices(std::move(ids));
  }
  if (is_id_list_text(value)) return Devices(value);
  throw OptionParseError(kReason);
}

OptionText OptionTraits<Devices>::render(const Devices& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, int>) {
          return std::to_string(v);
        } else {
          return fmt::format("[{}]", fmt::join(v, ", "));
        }
      },
      value.value);
}

FastDevRun OptionTraits<FastDevRun>::parse(const OptionText& text) {
  const std::string& value = require_text(text);
  if (is_int_text(value)) {
    const int64_t batches = parse_int_text(value);
    if (batches < 0) throw OptionParseError("a number of batches must not be negative");
    return FastDevRun(batches);
  }
  return FastDevRun(parse_bool_text(value));
}

OptionText OptionTraits<FastDevRun>::render(const FastDevRun& value) {
  if (value.batches == 0) return "false";
  if (value.batches == 1) return "true";
  return std::to_string(value.batches);
}

SaveLast OptionTraits<SaveLast>::parse(const OptionText& text) {
  if (!text) return SaveLast(false);  // Lightning's default, None
  if (lower(trim(*text)) == "link") return SaveLast::link();
  return SaveLast(parse_bool_text(*text));
}

OptionText OptionTraits<SaveLast>::render(SaveLast value) {
  if (value.is_link()) return "link";
  return value ? "true" : "false";
}

}  // namespace fulgur
