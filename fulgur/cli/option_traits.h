#pragma once
// How one typed option travels to and from text, as LightningCLI (jsonargparse) reads it.
// `OptionTraits<T>` gives, for each supported field type T: a type name for help and errors, a
// parser from text, and a renderer to text that the parser reads back to the same value.
//
// Text is `OptionText`: a string, or nullopt for YAML's `null` (a command-line `null`/`None`
// becomes nullopt too). Only `std::optional<T>` fields accept null. A parse failure throws
// `OptionParseError` carrying an optional reason; OptionSchema turns it into a ConfigError that
// names the key, the value and the expected type.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/accelerators/devices.h"
#include "fulgur/callbacks/save_last.h"
#include "fulgur/trainer_options.h"

namespace fulgur {

using OptionText = std::optional<std::string>;

class OptionParseError : public std::runtime_error {
 public:
  // `reason` may be empty: the expected type already says enough.
  explicit OptionParseError(const std::string& reason = "") : std::runtime_error(reason) {}
};

// Scalar parsers: whole-string matches only ("3x" is not an int), surrounding blanks ignored.
bool parse_bool_text(const std::string& text);
int64_t parse_int_text(const std::string& text);
uint64_t parse_uint_text(const std::string& text);
double parse_float_text(const std::string& text);
// Shortest text that reads back to `value`, always recognisable as a float ("1.0", "0.001").
std::string render_float(double value);
// True for the words a command line or YAML uses for "no value".
bool is_null_word(const std::string& text);

// The text of a value that must not be null, or OptionParseError.
const std::string& require_text(const OptionText& text);
// The items of a YAML flow map of single values, "{0: 1, 4: 2}" (blanks trimmed, "{}" empty),
// in order; OptionParseError for anything else.
std::vector<std::pair<std::string, std::string>> split_flow_map(const std::string& text);

template <typename T>
struct OptionTraits;

template <>
struct OptionTraits<bool> {
  static std::string type_name() { return "bool"; }
  static bool parse(const OptionText& text) { return parse_bool_text(require_text(text)); }
  static OptionText render(bool value) { return value ? "true" : "false"; }
};

// ModelCheckpoint's save_last: a bool or "link", as Lightning's Optional[Union[bool, "link"]].
template <>
struct OptionTraits<SaveLast> {
  static std::string type_name() { return "bool|link"; }
  static SaveLast parse(const OptionText& text);
  static OptionText render(SaveLast value);
};

template <>
struct OptionTraits<int64_t> {
  static std::string type_name() { return "int"; }
  static int64_t parse(const OptionText& text) { return parse_int_text(require_text(text)); }
  static OptionText render(int64_t value) { return std::to_string(value); }
};

template <>
struct OptionTraits<int> {
  static std::string type_name() { return "int"; }
  static int parse(const OptionText& text);
  static OptionText render(int value) { return std::to_string(value); }
};

template <>
struct OptionTraits<uint64_t> {
  static std::string type_name() { return "int"; }
  static uint64_t parse(const OptionText& text) { return parse_uint_text(require_text(text)); }
  static OptionText render(uint64_t value) { return std::to_string(value); }
};

template <>
struct OptionTraits<double> {
  static std::string type_name() { return "float"; }
  static double parse(const OptionText& text) { return parse_float_text(require_text(text)); }
  static OptionText render(double value) { return render_float(value); }
};

template <>
struct OptionTraits<std::string> {
  static std::string type_name() { return "string"; }
  static std::string parse(const OptionText& text) { return require_text(text); }
  static OptionText render(const std::string& value) { return value; }
};

// Lightning's int-or-float limits: an integer is a count of batches, anything else that reads
// as a number ("0.25", "1.0", "1e-2") is a fraction of the epoch, which must lie in [0, 1].
template <>
struct OptionTraits<BatchCount> {
  static std::string type_name() { return "int|float"; }
  static BatchCount parse(const OptionText& text);
  static OptionText render(const BatchCount& value);
};

// "auto", a count (-1 = all), an id list "0,1" / "1," / "[0, 1]".
template <>
struct OptionTraits<Devices> {
  static std::string type_name() { return "int|string"; }
  static Devices parse(const OptionText& text);
  static OptionText render(const Devices& value);
};

// false, true (one batch) or a number of batches.
template <>
struct OptionTraits<FastDevRun> {
  static std::string type_name() { return "bool|int"; }
  static FastDevRun parse(const OptionText& text);
  static OptionText render(const FastDevRun& value);
};

// A map of single values written as YAML's flow map, "{0: 1, 4: 2}" (in a config file a block
// map works too): GradientAccumulationScheduler's `scheduling`. Keys must be distinct.
template <typename K, typename V>
struct OptionTraits<std::map<K, V>> {
  static std::string type_name() {
    return "{" + OptionTraits<K>::type_name() + ": " + OptionTraits<V>::type_name() + "}";
  }
  static std::map<K, V> parse(const OptionText& text) {
    std::map<K, V> out;
    for (const auto& [key_text, value_text] : split_flow_map(require_text(text))) {
      const K key = parse_item<K>(key_text, "key '" + key_text + "'");
      V value = parse_item<V>(value_text, "value '" + value_text + "' of key " + key_text);
      if (!out.emplace(key, std::move(value)).second) {
        throw OptionParseError("key " + key_text + " is given twice");
      }
    }
    return out;
  }
  static OptionText render(const std::map<K, V>& value) {
    std::string text;
    for (const auto& [key, item] : value) {
      text += (text.empty() ? "" : ", ") + item_text(OptionTraits<K>::render(key)) + ": " +
              item_text(OptionTraits<V>::render(item));
    }
    return "{" + text + "}";
  }

 private:
  template <typename T>
  static T parse_item(const std::string& text, const std::string& what) {
    try {
      return OptionTraits<T>::parse(text);
    } catch (const OptionParseError&) {
      throw OptionParseError("bad " + what + ": expected " + OptionTraits<T>::type_name());
    }
  }
  static std::string item_text(const OptionText& text) { return text.value_or("null"); }
};

template <typename T>
struct OptionTraits<std::optional<T>> {
  static std::string type_name() { return OptionTraits<T>::type_name() + "|null"; }
  static std::optional<T> parse(const OptionText& text) {
    if (!text || is_null_word(*text)) return std::nullopt;
    return OptionTraits<T>::parse(text);
  }
  static OptionText render(const std::optional<T>& value) {
    if (!value) return std::nullopt;
    return OptionTraits<T>::render(*value);
  }
};

}  // namespace fulgur
