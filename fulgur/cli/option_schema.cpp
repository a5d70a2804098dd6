#include "fulgur/cli/option_schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "fulgur/cli/suggest.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

std::string shown_key(const std::string& key, const std::string& origin) {
  return origin.empty() ? "--" + key : key;
}

std::string where(const std::string& origin) { return origin.empty() ? "" : " in " + origin; }

std::string shown_value(const OptionText& text) {
  return text ? fmt::format("'{}'", *text) : std::string("null");
}

// Keys in insertion order, nested by their dotted components, for YAML output.
struct KeyTree {
  std::string name;
  const OptionSpec* option = nullptr;
  std::vector<KeyTree> children;

  KeyTree& child(const std::string& part) {
    for (auto& c : children) {
      if (c.name == part && c.option == nullptr) return c;
    }
    children.push_back(KeyTree{part, nullptr, {}});
    return children.back();
  }
};

void emit(YAML::Emitter& out, const KeyTree& node) {
  out << YAML::BeginMap;
  for (const auto& child : node.children) {
    out << YAML::Key << child.name << YAML::Value;
    if (child.option == nullptr) {
      emit(out, child);
    } else if (child.option->structured != nullptr) {
      child.option->structured->emit_yaml(out);
    } else {
      emit_option_text(out, child.option->current());
    }
  }
  out << YAML::EndMap;
}

std::string scalar_text(const YAML::Node& node, const std::string& key, const std::string& origin) {
  if (node.IsScalar()) return node.Scalar();
  throw ConfigError(fmt::format("invalid value for {}{}: expected a single value, not a map", key,
                                where(origin)));
}

}  // namespace

void emit_option_text(YAML::Emitter& out, const OptionText& text) {
  if (text && is_null_word(*text)) {
    out << YAML::DoubleQuoted << *text;  // plain, YAML would read it back as null
  } else if (text) {
    out << *text;
  } else {
    out << YAML::Null;
  }
}

OptionSpec& OptionSchema::add(OptionSpec spec) {
  if (spec.key.empty() || spec.key.front() == '.' || spec.key.back() == '.') {
    throw ConfigError(
        fmt::format("option key '{}' is not a dotted name like trainer.max_epochs", spec.key));
  }
  if (contains(spec.key)) {
    throw ConfigError(
        fmt::format("option --{} is defined twice; give each option one key", spec.key));
  }
  options_.push_back(std::move(spec));
  return options_.back();
}

const OptionSpec* OptionSchema::find(const std::string& key) const {
  for (const auto& option : options_) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

const OptionSpec* OptionSchema::structured_owner(const std::string& key) const {
  for (const auto& option : options_) {
    if (option.structured == nullptr) continue;
    if (key == option.key + "+" || key.starts_with(option.key + ".")) return &option;
  }
  return nullptr;
}

bool OptionSchema::accepts(const std::string& key) const {
  return find(key) != nullptr || structured_owner(key) != nullptr;
}

void OptionSchema::move_to_end(const std::string& key) {
  auto it = std::find_if(options_.begin(), options_.end(),
                         [&](const OptionSpec& o) { return o.key == key; });
  if (it != options_.end()) std::rotate(it, it + 1, options_.end());
}

std::string OptionSchema::nearest_key(const std::string& key) const {
  std::vector<std::string> keys;
  keys.reserve(options_.size());
  for (const auto& option : options_) keys.push_back(option.key);
  return closest_match(key, keys);
}

void OptionSchema::set(const std::string& key, const OptionText& text, const std::string& origin) {
  const OptionSpec* option = find(key);
  if (option == nullptr) {
    if (const OptionSpec* owner = structured_owner(key)) {
      if (key == owner->key + "+") {
        owner->structured->append(text, origin);
      } else {
        owner->structured->set_sub(key.substr(owner->key.size() + 1), text, origin);
      }
      return;
    }
    if (key.ends_with('+')) {
      // `+=` on a key that holds one value, or on a mistyped list key.
      const std::string base = key.substr(0, key.size() - 1);
      if (contains(base)) {
        throw ConfigError(fmt::format(
            "option {}{} holds a single value; write {}=VALUE (+= only appends to lists)",
            shown_key(base, origin), where(origin), shown_key(base, origin)));
      }
      const std::string nearest = nearest_key(base);
      const OptionSpec* near = find(nearest);
      if (near != nullptr && near->structured != nullptr) {
        throw ConfigError(fmt::format("unknown option {}{}; did you mean {}+?",
                                      shown_key(key, origin), where(origin),
                                      shown_key(nearest, origin)));
      }
    }
    const std::string nearest = nearest_key(key);
    if (!nearest.empty()) {
      throw ConfigError(fmt::format("unknown option {}{}; did you mean {}?", shown_key(key, origin),
                                    where(origin), shown_key(nearest, origin)));
    }
    throw ConfigError(fmt::format("unknown option {}{}; run with --help to list the options",
                                  shown_key(key, origin), where(origin)));
  }
  try {
    if (option->structured != nullptr) {
      option->structured->set_text(text, origin);
    } else {
      option->assign(text);
    }
  } catch (const OptionParseError& e) {
    const std::string reason = e.what();
    throw ConfigError(fmt::format("invalid value {} for {}{}: expected {}{}", shown_value(text),
                                  shown_key(key, origin), where(origin), option->type,
                                  reason.empty() ? "" : " (" + reason + ")"));
  }
}

void OptionSchema::set_from_yaml(const std::string& yaml, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{} is not valid YAML: {}", origin, e.what()));
  }
  if (!root || root.IsNull()) return;  // an empty file sets nothing
  if (!root.IsMap()) {
    throw ConfigError(
        fmt::format("{} must hold a mapping such as 'trainer: {{max_epochs: 3}}'", origin));
  }
  const auto is_group = [this](const std::string& key) {
    return std::any_of(options_.begin(), options_.end(),
                       [&](const OptionSpec& o) { return o.key.starts_with(key + "."); });
  };
  const std::function<void(const YAML::Node&, const std::string&)> walk =
      [&](const YAML::Node& map, const std::string& prefix) {
        for (const auto& entry : map) {
          const std::string name = scalar_text(entry.first, prefix + "<key>", origin);
          const std::string key = prefix.empty() ? name : prefix + "." + name;
          const YAML::Node& value = entry.second;
          const OptionSpec* option = find(key);
          if (option != nullptr && option->structured != nullptr) {
            option->structured->set_yaml(value, origin);
          } else if (value.IsMap()) {
            walk(value, key);
          } else if (value.IsSequence()) {
            std::vector<std::string> items;
            for (const auto& item : value) items.push_back(scalar_text(item, key, origin));
            set(key, fmt::format("[{}]", fmt::join(items, ", ")), origin);
          } else if (!value || value.IsNull()) {
            // `trainer:` with nothing under it is an empty section, not a value.
            if (!contains(key) && is_group(key)) continue;
            set(key, std::nullopt, origin);
          } else {
            set(key, value.Scalar(), origin);
          }
        }
      };
  walk(root, "");
}

std::string OptionSchema::to_yaml() const {
  KeyTree root;
  for (const auto& option : options_) {
    KeyTree* node = &root;
    size_t start = 0;
    while (true) {
      const size_t dot = option.key.find('.', start);
      if (dot == std::string::npos) {
        node->children.push_back(KeyTree{option.key.substr(start), &option, {}});
        break;
      }
      node = &node->child(option.key.substr(start, dot - start));
      start = dot + 1;
    }
  }
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  emit(out, root);
  return std::string(out.c_str()) + "\n";
}

std::string OptionSchema::help_table(const std::string& indent,
                                     const std::string& key_prefix) const {
  size_t key_width = 0;
  size_t type_width = 0;
  size_t default_width = 0;
  std::vector<std::string> defaults;
  for (const auto& option : options_) {
    std::string shown = option.default_value ? *option.default_value : "null";
    if (option.default_value && option.default_value->empty()) shown = "\"\"";
    defaults.push_back("default: " + shown);
    key_width = std::max(key_width, key_prefix.size() + option.key.size());
    type_width = std::max(type_width, option.type.size());
    default_width = std::max(default_width, defaults.back().size());
  }
  std::string text;
  for (size_t i = 0; i < options_.size(); ++i) {
    const auto& option = options_[i];
    text +=
        fmt::format("{}{:<{}}  {:<{}}  {:<{}}  {}\n", indent, key_prefix + option.key, key_width,
                    option.type, type_width, defaults[i], default_width, option.help);
  }
  return text;
}

}  // namespace fulgur
