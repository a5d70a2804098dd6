#pragma once
// A registry of pluggable parts by name (accelerators, strategies, precisions), with aliases.
// Users add their own: `fulgur::strategy_registry().add("my", [] { return ...; });`
// A name may also be marked "planned": a part fulgur will have but this build lacks. Asking for
// it raises a ConfigError that says so, instead of calling a real name unknown.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fulgur/errors.h"

namespace fulgur {

template <typename T>
class Registry {
 public:
  using Factory = std::function<std::shared_ptr<T>()>;

  // `kind` names the flag in error messages ("accelerator", "strategy", "precision").
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // Registers (or replaces) `name`.
  void add(const std::string& name, Factory factory) {
    std::lock_guard lock(mutex_);
    factories_[name] = std::move(factory);
  }
  // Forgets `name` (a no-op when it is not registered); aliases to it stay but resolve to nothing.
  void remove(const std::string& name) {
    std::lock_guard lock(mutex_);
    factories_.erase(name);
  }
  void add_alias(const std::string& alias, const std::string& name) {
    std::lock_guard lock(mutex_);
    aliases_[alias] = name;
  }
  // Marks `name` as a part a later version provides; registering it later wins.
  void add_planned(const std::string& name) {
    std::lock_guard lock(mutex_);
    planned_.insert(name);
  }
  bool contains(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return factories_.count(resolve(name)) > 0;
  }
  // True when `name` (or what it aliases) is planned but not registered.
  bool is_planned(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto target = resolve(name);
    return factories_.count(target) == 0 && planned_.count(target) > 0;
  }
  // The registered name an alias stands for (the name itself when it is not an alias).
  std::string canonical_name(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return resolve(name);
  }
  // Raises ConfigError for an unknown or planned name; `extra` are further names the caller
  // accepts (e.g. "auto"), listed in the message.
  std::shared_ptr<T> create(const std::string& name,
                            const std::vector<std::string>& extra = {}) const {
    Factory factory;
    bool planned = false;
    {
      std::lock_guard lock(mutex_);
      auto target = resolve(name);
      auto it = factories_.find(target);
      if (it != factories_.end()) {
        factory = it->second;
      } else {
        planned = planned_.count(target) > 0;
      }
    }
    if (!factory) throw planned ? not_available(name, extra) : unknown(name, extra);
    return factory();
  }
  // Every name a user may write and get a part for, aliases included, sorted.
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, _] : factories_) out.push_back(name);
    for (const auto& [alias, target] : aliases_) {
      if (factories_.count(target) > 0) out.push_back(alias);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  ConfigError unknown(const std::string& name, const std::vector<std::string>& extra = {}) const {
    return ConfigError(flag(name) + " is not a known " + kind_ + "; choose one of " +
                       allowed_list(extra));
  }
  ConfigError not_available(const std::string& name,
                            const std::vector<std::string>& extra = {}) const {
    auto target = canonical_name(name);
    std::string shown = flag(name) + (target == name ? "" : " (\"" + target + "\")");
    return ConfigError(shown + " is not available in this build of fulgur yet; choose one of " +
                       allowed_list(extra));
  }
  // `"a", "b", "c"`: the names() plus `extra`, sorted, quoted.
  std::string allowed_list(const std::vector<std::string>& extra = {}) const {
    auto allowed = names();
    allowed.insert(allowed.end(), extra.begin(), extra.end());
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    std::string list;
    for (const auto& n : allowed) list += (list.empty() ? "" : ", ") + ("\"" + n + "\"");
    return list;
  }

 private:
  std::string flag(const std::string& name) const { return kind_ + "=\"" + name + "\""; }
  std::string resolve(const std::string& name) const {
    auto it = aliases_.find(name);
    return it == aliases_.end() ? name : it->second;
  }
  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, Factory> factories_;
  std::map<std::string, std::string> aliases_;
  std::set<std::string> planned_;
};

}  // namespace fulgur
