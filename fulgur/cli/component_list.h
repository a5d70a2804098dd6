#pragma once
// ComponentList: the components one Trainer option chooses by class name, written as LightningCLI
// (jsonargparse) writes them:
//
//   trainer:
//     callbacks:
//       - class_path: EarlyStopping   # or lightning.pytorch.callbacks.EarlyStopping
//         init_args: {monitor: val_loss, patience: 5}
//   --trainer.callbacks+=EarlyStopping --trainer.callbacks.patience=5
//
// The last dotted component of a class_path is the name looked up in the catalog. A config file's
// list replaces the list so far; `--KEY+=NAME` appends an entry at its defaults; `--KEY.ARG=V` (or
// `--KEY.init_args.ARG=V`) sets an init arg of the last entry; `--KEY=NAME` replaces the list with
// one entry; null or [] empties it. With `accepts_bool` (`trainer.logger`) the value may also be
// true (the default logger) or false (none), null means true, and a single entry is written as a
// map rather than a one-item list.
//
// Guarantees: every mistake raises ConfigError with one line naming the entry
// (`trainer.callbacks[1]`), where it came from and the nearest valid name; a config file's value
// that fails leaves the list as it was. `emit_yaml` writes every entry with all its init args,
// which `set_yaml` reads back to the same list.
#include <memory>
#include <string>
#include <vector>

#include "fulgur/cli/component_catalog.h"
#include "fulgur/cli/option_schema.h"
#include "fulgur/cli/structured_option.h"

namespace fulgur {

struct ComponentListOptions {
  std::string key;              // "trainer.callbacks"
  bool accepts_bool = false;    // also true/false, one entry as a map: `trainer.logger`
  bool default_enabled = true;  // with accepts_bool: the value before anything is chosen
};

class ComponentList final : public StructuredOption {
 public:
  struct Entry {
    std::string name;  // the registered name
    std::shared_ptr<ComponentArgs> args;
  };

  // `catalog` must outlive the list.
  ComponentList(ComponentListOptions options, const ComponentCatalog& catalog);
  // An OptionSchema holds a pointer to the list.
  ComponentList(const ComponentList&) = delete;
  ComponentList& operator=(const ComponentList&) = delete;

  // The option to add to a schema: the list's key, its type ("list[Callback]",
  // "bool|Logger|list[Logger]"), `help`, and the list itself as the structured value.
  OptionSpec option_spec(std::string help);

  const std::string& key() const { return options_.key; }
  const std::vector<Entry>& entries() const { return entries_; }
  // With accepts_bool: false when the value is `false` (or []); true for true or entries.
  bool enabled() const { return !entries_.empty() || enabled_; }
  // How errors name entry `index`: "trainer.callbacks[1]"; "trainer.logger" for a lone logger.
  std::string label(size_t index) const;
  // Back to nothing chosen (and, with accepts_bool, default_enabled).
  void reset();

  // The catalog's classes, each with its description and init args (type, default, help).
  std::string catalog_help(const std::string& indent = "  ") const;

  void set_text(const OptionText& text, const std::string& origin) override;
  void set_yaml(const YAML::Node& value, const std::string& origin) override;
  void append(const OptionText& text, const std::string& origin) override;
  void set_sub(const std::string& sub, const OptionText& text, const std::string& origin) override;
  void emit_yaml(YAML::Emitter& out) const override;

 private:
  std::string type_name() const;
  OptionText current_text() const;
  std::string label(size_t index, size_t count) const;
  Entry make_entry(const std::string& class_path, const std::string& label,
                   const std::string& origin) const;
  Entry entry_from_yaml(const YAML::Node& node, const std::string& label,
                        const std::string& origin) const;
  void set_init_arg(const Entry& entry, const std::string& label, const std::string& name,
                    const OptionText& text, const std::string& origin) const;

  ComponentListOptions options_;
  const ComponentCatalog& catalog_;
  std::vector<Entry> entries_;
  bool enabled_;
};

}  // namespace fulgur
