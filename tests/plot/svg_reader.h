#pragma once
// A strict reader for the XML fulgur's charts write, so tests can check structure instead of
// matching text: elements, attributes and text, entities decoded. Anything not well-formed
// (unbalanced or mismatched tags, a raw '<' or '&', an unknown entity, an unquoted or
// repeated attribute, content after the root) throws std::runtime_error saying where.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fulgur::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // the element's own character data, concatenated
  std::vector<XmlElement> children;

  std::string attribute(const std::string& key) const {
    const auto it = attributes.find(key);
    return it == attributes.end() ? std::string() : it->second;
  }
  // Every element below this one (depth first, document order) for which `match` holds.
  std::vector<const XmlElement*> find_all(
      const std::function<bool(const XmlElement&)>& match) const {
    std::vector<const XmlElement*> found;
    collect(match, found);
    return found;
  }
  std::vector<const XmlElement*> with_class(const std::string& cls) const {
    return find_all([&](const XmlElement& e) { return e.attribute("class") == cls; });
  }
  std::vector<const XmlElement*> named(const std::string& tag) const {
    return find_all([&](const XmlElement& e) { return e.name == tag; });
  }
  // The first child element called `tag`, or nullptr.
  const XmlElement* child(const std::string& tag) const {
    for (const auto& c : children) {
      if (c.name == tag) return &c;
    }
    return nullptr;
  }

 private:
  void collect(const std::function<bool(const XmlElement&)>& match,
               std::vector<const XmlElement*>& found) const {
    for (const auto& c : children) {
      if (match(c)) found.push_back(&c);
      c.collect(match, found);
    }
  }
};

class XmlReader {
 public:
  static XmlElement parse(std::string_view text) {
    XmlReader reader(text);
    return reader.document();
  }

 private:
  explicit XmlReader(std::string_view text) : s_(text) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML error at byte " + std::to_string(i_) + ": " + what);
  }
  bool at(std::string_view prefix) const { return s_.substr(i_).starts_with(prefix); }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  }
  std::string name() {
    const size_t start = i_;
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    if (i_ == start) fail("expected a name");
    return std::string(s_.substr(start, i_ - start));
  }
  static void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  // At '&': the entity's text.
  void entity(std::string& out) {
    const size_t end = s_.find(';', i_);
    if (end == std::string_view::npos || end - i_ > 12) fail("an '&' that starts no entity");
    const std::string_view ref = s_.substr(i_ + 1, end - i_ - 1);
    static const std::map<std::string_view, char> named = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    if (const auto it = named.find(ref); it != named.end()) {
      out += it->second;
    } else if (ref.starts_with("#x") && ref.size() > 2) {
      append_utf8(out, static_cast<uint32_t>(std::stoul(std::string(ref.substr(2)), nullptr, 16)));
    } else if (ref.starts_with("#") && ref.size() > 1) {
      append_utf8(out, static_cast<uint32_t>(std::stoul(std::string(ref.substr(1)))));
    } else {
      fail("unknown entity &" + std::string(ref) + ";");
    }
    i_ = end + 1;
  }
  std::string attribute_value() {
    const char quote = i_ < s_.size() ? s_[i_] : '\0';
    if (quote != '"' && quote != '\'') fail("an attribute value without quotes");
    ++i_;
    std::string value;
    while (true) {
      if (i_ >= s_.size()) fail("an attribute value that never ends");
      const char c = s_[i_];
      if (c == quote) break;
      if (c == '<') fail("a raw '<' in an attribute value");
      if (c == '&') {
        entity(value);
        continue;
      }
      value += c;
      ++i_;
    }
    ++i_;
    return value;
  }
  void skip_misc() {
    while (true) {
      skip_space();
      if (at("<?")) {
        const size_t end = s_.find("?>", i_);
        if (end == std::string_view::npos) fail("an unterminated <?");
        i_ = end + 2;
      } else if (at("<!--")) {
        const size_t end = s_.find("-->", i_);
        if (end == std::string_view::npos) fail("an unterminated comment");
        i_ = end + 3;
      } else {
        return;
      }
    }
  }
  XmlElement element() {
    expect('<');
    XmlElement e;
    e.name = name();
    while (true) {
      skip_space();
      if (at("/>")) {
        i_ += 2;
        return e;
      }
      if (at(">")) {
        ++i_;
        break;
      }
      const std::string key = name();
      skip_space();
      expect('=');
      skip_space();
      if (!e.attributes.emplace(key, attribute_value()).second) fail("attribute " + key + " twice");
    }
    while (true) {
      if (i_ >= s_.size()) fail("<" + e.name + "> is never closed");
      if (at("</")) {
        i_ += 2;
        const std::string closing = name();
        if (closing != e.name) fail("</" + closing + "> closes <" + e.name + ">");
        skip_space();
        expect('>');
        return e;
      }
      if (at("<!--")) {
        skip_misc();
      } else if (s_[i_] == '<') {
        e.children.push_back(element());
      } else if (s_[i_] == '&') {
        entity(e.text);
      } else {
        if (s_[i_] == '>') fail("a raw '>' in text");  // legal XML, but fulgur escapes it
        e.text += s_[i_++];
      }
    }
  }
  XmlElement document() {
    skip_misc();
    XmlElement root = element();
    skip_misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// The (x, y) pairs of a polyline's points attribute.
inline std::vector<std::pair<double, double>> polyline_points(const XmlElement& polyline) {
  std::vector<std::pair<double, double>> points;
  const std::string text = polyline.attribute("points");
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(' ', pos), text.size());
    const std::string pair = text.substr(pos, end - pos);
    const size_t comma = pair.find(',');
    if (comma == std::string::npos) throw std::runtime_error("bad point: " + pair);
    points.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
    pos = end + 1;
  }
  return points;
}

}  // namespace fulgur::testing
