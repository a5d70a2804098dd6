#include "fulgur/cli/component_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <cctype>

#include "fulgur/cli/suggest.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

constexpr const char* kEntryForm = "{class_path: NAME, init_args: {KEY: VALUE}}";

std::string where(const std::string& origin) { return origin.empty() ? "" : " in " + origin; }

std::string shown_key(const std::string& key, const std::string& origin) {
  return origin.empty() ? "--" + key : key;
}

std::string shown_value(const OptionText& text) {
  return text ? fmt::format("'{}'", *text) : std::string("null");
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Lightning's class_path is a dotted Python path; the last component is the class.
std::string class_name_of(const std::string& class_path) {
  const auto dot = class_path.rfind('.');
  return dot == std::string::npos ? class_path : class_path.substr(dot + 1);
}

// A YAML value as an error message shows it.
std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return fmt::format("'{}'", node.Scalar());
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return "null";
}

std::string key_text(const YAML::Node& key, const std::string& label, const std::string& origin) {
  if (key.IsScalar()) return key.Scalar();
  throw ConfigError(
      fmt::format("{}{} has a key that is {}, not a name", label, where(origin), describe(key)));
}

// An init arg's YAML value as the text OptionTraits parse: a scalar as it is, a list of values
// as "[a, b]", a map of values as "{k: v}" (GradientAccumulationScheduler's scheduling).
OptionText init_arg_text(const YAML::Node& node, const std::string& key,
                         const std::string& origin) {
  if (!node || node.IsNull()) return std::nullopt;
  if (node.IsScalar()) return node.Scalar();
  const auto nested = [&] {
    return ConfigError(
        fmt::format("invalid value for {}{}: expected a single value, or a list or map of single "
                    "values, not deeper nesting",
                    key, where(origin)));
  };
  std::vector<std::string> items;
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar()) throw nested();
      items.push_back(item.Scalar());
    }
    return fmt::format("[{}]", fmt::join(items, ", "));
  }
  for (const auto& item : node) {
    if (!item.first.IsScalar() || !item.second.IsScalar()) throw nested();
    items.push_back(item.first.Scalar() + ": " + item.second.Scalar());
  }
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

// A map-typed init arg ("{int: int}") is written as a YAML map, as Lightning prints a dict;
// init_arg_text turns it back into the same text. Anything else is a scalar.
void emit_init_arg(YAML::Emitter& out, const OptionSpec& arg) {
  const OptionText text = arg.current();
  if (text && arg.type.starts_with('{')) {
    try {
      const YAML::Node node = YAML::Load(*text);
      if (node.IsMap()) {
        out << node;
        return;
      }
    } catch (const YAML::Exception&) {
      // not YAML after all: written as text below
    }
  }
  emit_option_text(out, text);
}

YAML::Node load_flow(const std::string& text, const std::string& key, const std::string& origin) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("invalid value '{}' for {}{}: not valid YAML ({})", text,
                                  shown_key(key, origin), where(origin), e.msg));
  }
}

}  // namespace

ComponentList::ComponentList(ComponentListOptions options, const ComponentCatalog& catalog)
    : options_(std::move(options)), catalog_(catalog), enabled_(options_.default_enabled) {}

std::string ComponentList::type_name() const {
  std::string kind = catalog_.kind();
  if (!kind.empty()) kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
  const std::string list = "list[" + kind + "]";
  return options_.accepts_bool ? "bool|" + kind + "|" + list : list;
}

OptionText ComponentList::current_text() const {
  if (entries_.empty()) {
    if (!options_.accepts_bool) return std::nullopt;
    return enabled_ ? "true" : "false";
  }
  if (entries_.size() == 1) return entries_.front().name;
  std::vector<std::string> names;
  for (const auto& entry : entries_) names.push_back(entry.name);
  return fmt::format("[{}]", fmt::join(names, ", "));
}

OptionSpec ComponentList::option_spec(std::string help) {
  return OptionSpec{
      .key = options_.key,
      .type = type_name(),
      .help = std::move(help),
      .default_value = current_text(),
      .assign = [this](const OptionText& text) { set_text(text, ""); },
      .current = [this] { return current_text(); },
      .structured = this,
  };
}

std::string ComponentList::label(size_t index, size_t count) const {
  if (options_.accepts_bool && count == 1) return options_.key;
  return fmt::format("{}[{}]", options_.key, index);
}

std::string ComponentList::label(size_t index) const { return label(index, entries_.size()); }

void ComponentList::reset() {
  entries_.clear();
  enabled_ = options_.default_enabled;
}

ComponentList::Entry ComponentList::make_entry(const std::string& class_path,
                                               const std::string& label,
                                               const std::string& origin) const {
  const std::string name = class_name_of(trim(class_path));
  if (auto args = catalog_.make_args(name)) return Entry{args->class_name(), std::move(args)};

  const std::string& kind = catalog_.kind();
  const auto names = catalog_.names();
  const std::string registered = fmt::format("{}", fmt::join(names, ", "));
  if (catalog_.is_planned(name)) {
    throw ConfigError(fmt::format(
        "{} class '{}' for {}{} is not available in this build of fulgur yet; registered {}s: {}",
        kind, class_path, label, where(origin), kind, registered));
  }
  const std::string nearest = closest_match(name, names);
  if (!nearest.empty()) {
    throw ConfigError(
        fmt::format("unknown {} class '{}' for {}{}; did you mean {}? Registered {}s: {}", kind,
                    class_path, label, where(origin), nearest, kind, registered));
  }
  throw ConfigError(fmt::format("unknown {} class '{}' for {}{}; registered {}s: {}", kind,
                                class_path, label, where(origin), kind, registered));
}

void ComponentList::set_init_arg(const Entry& entry, const std::string& label,
                                 const std::string& name, const OptionText& text,
                                 const std::string& origin) const {
  const OptionSchema& args = entry.args->init_args();
  const OptionSpec* spec = args.find(name);
  if (spec == nullptr) {
    const std::string head =
        fmt::format("{} has no init arg '{}' ({}{})", entry.name, name, label, where(origin));
    const std::string nearest = args.nearest_key(name);
    if (!nearest.empty()) throw ConfigError(fmt::format("{}; did you mean {}?", head, nearest));
    std::vector<std::string> keys;
    for (const auto& option : args.options()) keys.push_back(option.key);
    if (keys.empty()) throw ConfigError(head + "; it takes no init args");
    throw ConfigError(fmt::format("{}; its init args are {}", head, fmt::join(keys, ", ")));
  }
  try {
    spec->assign(text);
  } catch (const OptionParseError& e) {
    const std::string reason = e.what();
    throw ConfigError(fmt::format("invalid value {} for {}.init_args.{}{}: expected {}{}",
                                  shown_value(text), label, name, where(origin), spec->type,
                                  reason.empty() ? "" : " (" + reason + ")"));
  }
}

ComponentList::Entry ComponentList::entry_from_yaml(const YAML::Node& node,
                                                    const std::string& label,
                                                    const std::string& origin) const {
  if (!node.IsMap()) {
    throw ConfigError(fmt::format("{}{} must be a map {}, not {}", label, where(origin), kEntryForm,
                                  describe(node)));
  }
  std::optional<YAML::Node> class_path;
  std::optional<YAML::Node> init_args;
  for (const auto& item : node) {
    const std::string key = key_text(item.first, label, origin);
    if (key == "class_path") {
      class_path.emplace(item.second);
    } else if (key == "init_args") {
      init_args.emplace(item.second);
    } else {
      throw ConfigError(
          fmt::format("unknown key '{}' in {}{}; an entry holds class_path and init_args (init "
                      "args go under init_args)",
                      key, label, where(origin)));
    }
  }
  if (!class_path) {
    throw ConfigError(
        fmt::format("{}{} has no class_path; write {}", label, where(origin), kEntryForm));
  }
  if (!class_path->IsScalar()) {
    throw ConfigError(fmt::format("{}.class_path{} must be a class name, not {}", label,
                                  where(origin), describe(*class_path)));
  }
  Entry entry = make_entry(class_path->Scalar(), label, origin);
  if (init_args && !init_args->IsNull()) {
    if (!init_args->IsMap()) {
      throw ConfigError(fmt::format("{}.init_args{} must be a map {{KEY: VALUE}}, not {}", label,
                                    where(origin), describe(*init_args)));
    }
    for (const auto& item : *init_args) {
      const std::string name = key_text(item.first, label + ".init_args", origin);
      const std::string full_key = label + ".init_args." + name;
      set_init_arg(entry, label, name, init_arg_text(item.second, full_key, origin), origin);
    }
  }
  return entry;
}

void ComponentList::set_text(const OptionText& raw, const std::string& origin) {
  // null is "nothing chosen": no callbacks; for the logger, Lightning's default logger.
  if (!raw || is_null_word(*raw)) {
    entries_.clear();
    enabled_ = true;
    return;
  }
  const std::string text = trim(*raw);
  // `--trainer.callbacks=[...]`, `--trainer.logger={class_path: ...}`: YAML on the line.
  if (text.starts_with('[') || text.starts_with('{')) {
    set_yaml(load_flow(text, options_.key, origin), origin);
    return;
  }
  if (options_.accepts_bool) {
    try {
      const bool on = parse_bool_text(text);
      entries_.clear();
      enabled_ = on;
      return;
    } catch (const OptionParseError&) {
      // not a bool: a class name
    }
  }
  if (text.empty()) {
    throw ConfigError(fmt::format("invalid value '' for {}{}: expected {} (a {} class name{})",
                                  shown_key(options_.key, origin), where(origin), type_name(),
                                  catalog_.kind(),
                                  options_.accepts_bool ? ", true or false" : " or null"));
  }
  Entry entry = make_entry(text, label(0, 1), origin);
  entries_.clear();
  entries_.push_back(std::move(entry));
  enabled_ = true;
}

void ComponentList::set_yaml(const YAML::Node& value, const std::string& origin) {
  if (!value || value.IsNull()) {
    set_text(std::nullopt, origin);
    return;
  }
  if (value.IsScalar()) {
    set_text(value.Scalar(), origin);
    return;
  }
  std::vector<Entry> fresh;
  if (value.IsMap()) {
    fresh.push_back(entry_from_yaml(value, label(0, 1), origin));
  } else {
    for (size_t i = 0; i < value.size(); ++i) {
      fresh.push_back(entry_from_yaml(value[i], label(i, value.size()), origin));
    }
  }
  // An empty list chooses nothing; for the logger that means no logger, as in Lightning.
  enabled_ = !fresh.empty();
  entries_ = std::move(fresh);
}

void ComponentList::append(const OptionText& raw, const std::string& origin) {
  const std::string& kind = catalog_.kind();
  if (!raw || trim(*raw).empty()) {
    throw ConfigError(fmt::format("invalid value {} for {}+{}: expected a {} class name",
                                  shown_value(raw), shown_key(options_.key, origin), where(origin),
                                  kind));
  }
  const std::string text = trim(*raw);
  const size_t index = entries_.size();
  const std::string entry_label = label(index, index + 1);
  Entry entry = text.starts_with('{') ? entry_from_yaml(load_flow(text, options_.key + "+", origin),
                                                        entry_label, origin)
                                      : make_entry(text, entry_label, origin);
  entries_.push_back(std::move(entry));
  enabled_ = true;
}

void ComponentList::set_sub(const std::string& sub, const OptionText& text,
                            const std::string& origin) {
  const std::string name = sub.starts_with("init_args.") ? sub.substr(10) : sub;
  if (entries_.empty()) {
    throw ConfigError(
        fmt::format("option {}.{}{} needs a {} to configure; write {}{}=NAME before it",
                    shown_key(options_.key, origin), sub, where(origin), catalog_.kind(),
                    shown_key(options_.key, origin), options_.accepts_bool ? "" : "+"));
  }
  set_init_arg(entries_.back(), label(entries_.size() - 1), name, text, origin);
}

void ComponentList::emit_yaml(YAML::Emitter& out) const {
  if (entries_.empty()) {
    if (options_.accepts_bool) {
      out << (enabled_ ? "true" : "false");
    } else {
      out << YAML::Null;
    }
    return;
  }
  const bool as_map = options_.accepts_bool && entries_.size() == 1;
  if (!as_map) out << YAML::BeginSeq;
  for (const auto& entry : entries_) {
    out << YAML::BeginMap << YAML::Key << "class_path" << YAML::Value << entry.name;
    const auto& args = entry.args->init_args().options();
    if (!args.empty()) {
      out << YAML::Key << "init_args" << YAML::Value << YAML::BeginMap;
      for (const auto& arg : args) {
        out << YAML::Key << arg.key << YAML::Value;
        emit_init_arg(out, arg);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (!as_map) out << YAML::EndSeq;
}

std::string ComponentList::catalog_help(const std::string& indent) const {
  std::string text;
  for (const auto& name : catalog_.names()) {
    const auto args = catalog_.make_args(name);
    if (args == nullptr) continue;
    if (args->class_name() != name) {
      text += fmt::format("{}{}  (another name for {})\n", indent, name, args->class_name());
      continue;
    }
    text += fmt::format("{}{}  {}\n", indent, name, args->description());
    if (args->init_args().options().empty()) {
      text += indent + "    (no init args)\n";
    } else {
      text += args->init_args().help_table(indent + "    ", "");
    }
  }
  return text;
}

}  // namespace fulgur
