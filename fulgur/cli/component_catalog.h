#pragma once
// ComponentCatalog: what a config may name under one kind of component ("callback", "logger"), seen
// without the component's C++ type. ComponentRegistry<T> is the one implementation; ComponentList
// reads entries against it.
#include <memory>
#include <string>
#include <vector>

#include "fulgur/cli/component_args.h"

namespace fulgur {

class ComponentCatalog {
 public:
  virtual ~ComponentCatalog() = default;
  // "callback", "logger": the word error messages use.
  virtual const std::string& kind() const = 0;
  // Every name a config may write (aliases included), sorted.
  virtual std::vector<std::string> names() const = 0;
  // True when `name` is a component a later version of fulgur provides.
  virtual bool is_planned(const std::string& name) const = 0;
  // Fresh init args of `name` at their defaults, or nullptr when `name` is not registered.
  virtual std::shared_ptr<ComponentArgs> make_args(const std::string& name) const = 0;
};

}  // namespace fulgur
