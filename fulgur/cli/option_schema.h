#pragma once
// fulgur::OptionSchema — the typed keys a LightningCLI-style program accepts ("trainer.max_epochs",
// "model.lr", "seed_everything"), each bound to a field of a caller-owned struct.
//
// Every option has a dotted key, a type name, the default (the field's value when it was added,
// rendered as text), a help line, a setter that parses text into the field and a getter that
// renders the field's current value. The schema does not own the fields: they must outlive it.
//
// Guarantees: setting an unknown key raises ConfigError naming the nearest valid key; a value
// that does not parse raises ConfigError naming the key, the value and the expected type, and
// leaves the field unchanged. `to_yaml()` renders the current values so that setting them back
// (`set_from_yaml`) reproduces them exactly.
//
// A structured option (see structured_option.h) also answers the keys below its own:
// `--trainer.callbacks+=NAME` and `--trainer.callbacks.KEY=VALUE`.
#include <functional>
#include <string>
#include <vector>

#include "fulgur/cli/option_traits.h"
#include "fulgur/cli/structured_option.h"

namespace fulgur {

struct OptionSpec {
  std::string key;
  std::string type;
  std::string help;
  OptionText default_value;
  std::function<void(const OptionText&)> assign;  // throws OptionParseError
  std::function<OptionText()> current;
  // Set for a list or map value; it must outlive the schema. `assign` and `current` then serve
  // only as the text forms (help, `--KEY=TEXT` without an origin).
  StructuredOption* structured = nullptr;
};

// Writes one option's text as a YAML scalar that reads back as the same text (a null word
// quoted, nullopt as null).
void emit_option_text(YAML::Emitter& out, const OptionText& text);

class OptionSchema {
 public:
  // Binds `key` to `field`; the default shown in help is the field's value now.
  template <typename T>
  OptionSpec& add(std::string key, T& field, std::string help) {
    return add(OptionSpec{
        .key = std::move(key),
        .type = OptionTraits<T>::type_name(),
        .help = std::move(help),
        .default_value = OptionTraits<T>::render(field),
        .assign = [&field](const OptionText& text) { field = OptionTraits<T>::parse(text); },
        .current = [&field] { return OptionTraits<T>::render(field); },
    });
  }
  // An option with its own conversion (e.g. a field whose "unset" is an empty string).
  OptionSpec& add(OptionSpec spec);

  bool contains(const std::string& key) const { return find(key) != nullptr; }
  const OptionSpec* find(const std::string& key) const;
  // True for an option's key and for the keys below a structured option (`KEY+`, `KEY.SUB`).
  bool accepts(const std::string& key) const;
  const std::vector<OptionSpec>& options() const { return options_; }
  // Moves an option to the end, keeping it last in help and YAML (e.g. `ckpt_path`).
  void move_to_end(const std::string& key);

  // Parses `text` into the field bound to `key`. `origin` says where the value came from for
  // error messages: "" for the command line (keys shown as --key), else e.g. "config a.yaml".
  // `KEY+` and `KEY.SUB` go to the structured option KEY (append, set_sub).
  void set(const std::string& key, const OptionText& text, const std::string& origin = "");
  // Applies a YAML document: nested maps become dotted keys; `null` is a null value; a list
  // becomes "[a, b]"; a structured option gets its value whole. Keys are applied in document
  // order. `origin` as for set().
  void set_from_yaml(const std::string& yaml, const std::string& origin);

  // The valid key closest to `key` by edit distance, or "" when nothing is close.
  std::string nearest_key(const std::string& key) const;

  // The current values as one YAML document, grouped by the first key component in the order
  // the groups first appear: `trainer: {max_epochs: 3}` ... Readable back by set_from_yaml.
  std::string to_yaml() const;
  // One line per option: `<indent><key_prefix>key  TYPE  default: X  help`.
  std::string help_table(const std::string& indent = "  ",
                         const std::string& key_prefix = "--") const;

 private:
  // The structured option `key` lies below (`KEY+`, `KEY.SUB`), or nullptr.
  const OptionSpec* structured_owner(const std::string& key) const;

  std::vector<OptionSpec> options_;
};

}  // namespace fulgur
