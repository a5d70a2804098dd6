#pragma once
// ComponentArgs: the init args of one component a config chooses by class name (one entry
// `{class_path: EarlyStopping, init_args: {patience: 5}}`), bound to a fresh options struct that
// the object owns. Each init arg is an OptionSchema key ("patience"), so init args parse, render
// and report mistakes as the trainer's keys do. The registry that made the object builds the
// component from it (ComponentRegistry::build).
//
// The schema holds references into this object: it is neither copied nor moved.
#include <string>

#include "fulgur/cli/option_schema.h"

namespace fulgur {

class ComponentArgs {
 public:
  ComponentArgs(std::string class_name, std::string description)
      : class_name_(std::move(class_name)), description_(std::move(description)) {}
  virtual ~ComponentArgs() = default;
  ComponentArgs(const ComponentArgs&) = delete;
  ComponentArgs& operator=(const ComponentArgs&) = delete;

  // The registered name (never an alias or a dotted class_path).
  const std::string& class_name() const { return class_name_; }
  // One line for --help.
  const std::string& description() const { return description_; }
  OptionSchema& init_args() { return init_args_; }
  const OptionSchema& init_args() const { return init_args_; }

 private:
  std::string class_name_;
  std::string description_;
  OptionSchema init_args_;
};

}  // namespace fulgur
