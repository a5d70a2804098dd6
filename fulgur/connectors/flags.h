#pragma once
// Flag types for the Trainer's hardware options: a part given by name or as an instance, and
// the plugins list. They convert implicitly so designated initializers read naturally:
// `{.accelerator = "cpu", .strategy = std::make_shared<MyStrategy>(), .precision = "64"}`.
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace fulgur {

class Accelerator;
class Strategy;
class Precision;
class CheckpointIO;
class ClusterEnvironment;

template <typename T>
struct NamedOrInstance {
  std::string name;              // "" when given as an instance or not given at all
  std::shared_ptr<T> instance;

  NamedOrInstance() = default;
  NamedOrInstance(const char* n) : name(n) {}
  NamedOrInstance(std::string n) : name(std::move(n)) {}
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  NamedOrInstance(std::shared_ptr<U> i) : instance(std::move(i)) {}

  bool is_set() const { return !name.empty() || instance != nullptr; }
};

using AcceleratorFlag = NamedOrInstance<Accelerator>;
using StrategyFlag = NamedOrInstance<Strategy>;
// Unset means "32-true". A name here and a Precision in `plugins` conflict.
using PrecisionFlag = NamedOrInstance<Precision>;

// Lightning's `plugins=`: parts that slot into whatever strategy is chosen.
using Plugin = std::variant<std::shared_ptr<Precision>, std::shared_ptr<CheckpointIO>,
                            std::shared_ptr<ClusterEnvironment>>;

}  // namespace fulgur
