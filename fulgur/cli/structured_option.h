#pragma once
// StructuredOption: an option whose value has more shape than one text can carry — a list of
// `{class_path: NAME, init_args: {...}}` entries such as `trainer.callbacks`. OptionSchema hands it
// the YAML value under its key whole, lets it write that value back, and routes the command-line
// keys jsonargparse derives from the key to it: `--KEY+=V` appends, `--KEY.SUB=V` sets something
// inside (an init arg of the last entry).
//
// Implementations raise ConfigError with their own one-line messages; `origin` is "" for the
// command line, else e.g. "config a.yaml", as for OptionSchema::set.
#include <string>

#include "fulgur/cli/option_traits.h"

namespace YAML {
class Node;
class Emitter;
}  // namespace YAML

namespace fulgur {

class StructuredOption {
 public:
  virtual ~StructuredOption() = default;
  // `--KEY=TEXT`, or a single value under KEY in a config file.
  virtual void set_text(const OptionText& text, const std::string& origin) = 0;
  // The value under KEY in a config file, whatever its shape.
  virtual void set_yaml(const YAML::Node& value, const std::string& origin) = 0;
  // `--KEY+=TEXT`.
  virtual void append(const OptionText& text, const std::string& origin) = 0;
  // `--KEY.SUB=TEXT`.
  virtual void set_sub(const std::string& sub, const OptionText& text,
                       const std::string& origin) = 0;
  // Writes the current value as the YAML value of KEY, readable back by set_yaml.
  virtual void emit_yaml(YAML::Emitter& out) const = 0;
};

}  // namespace fulgur
