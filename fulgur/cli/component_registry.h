#pragma once
// ComponentRegistry<T>: components (callbacks, loggers) a config chooses by class name, each with
// the init args it accepts. An entry binds each init arg to a field of its options struct and
// builds the component from the parsed struct:
//
//   fulgur::callback_registry().add<MyOptions>(
//       "MyCallback", "what it does, in one line",
//       [](fulgur::OptionSchema& args, MyOptions& o) { args.add("every", o.every, "help"); },
//       [](const MyOptions& o) { return std::make_shared<MyCallback>(o); });
//
// Field types are those OptionTraits knows (bool, int, float, string, optional<...>, map<K, V>,
// ...); an OptionSpec with its own conversion works too. Names live in fulgur's Registry (aliases,
// "planned" names); adding a name again replaces it.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "fulgur/cli/component_catalog.h"
#include "fulgur/errors.h"
#include "fulgur/registry.h"

namespace fulgur {

template <typename T>
class ComponentRegistry final : public ComponentCatalog {
 public:
  template <typename Options>
  using Binder = std::function<void(OptionSchema&, Options&)>;
  template <typename Options>
  using Maker = std::function<std::shared_ptr<T>(const Options&)>;

  explicit ComponentRegistry(std::string kind) : kind_(kind), registry_(std::move(kind)) {}

  // Registers (or replaces) `name`. `bind` adds the init args of a default-constructed Options;
  // `make` builds the component and may raise ConfigError for a bad combination.
  template <typename Options>
  void add(const std::string& name, std::string description,
           std::type_identity_t<Binder<Options>> bind, std::type_identity_t<Maker<Options>> make) {
    registry_.add(name, [name, description, bind, make]() -> std::shared_ptr<ComponentArgs> {
      return std::make_shared<Bound<Options>>(name, description, bind, make);
    });
  }
  void remove(const std::string& name) { registry_.remove(name); }
  void add_alias(const std::string& alias, const std::string& name) {
    registry_.add_alias(alias, name);
  }
  void add_planned(const std::string& name) { registry_.add_planned(name); }
  bool contains(const std::string& name) const { return registry_.contains(name); }

  const std::string& kind() const override { return kind_; }
  std::vector<std::string> names() const override { return registry_.names(); }
  bool is_planned(const std::string& name) const override { return registry_.is_planned(name); }
  std::shared_ptr<ComponentArgs> make_args(const std::string& name) const override {
    if (!registry_.contains(name)) return nullptr;
    return registry_.create(name);
  }

  // Builds the component `args` describe. `args` must come from a ComponentRegistry<T>.
  std::shared_ptr<T> build(const ComponentArgs& args) const {
    const auto* bound = dynamic_cast<const Builder*>(&args);
    if (bound == nullptr) {
      throw ConfigError(args.class_name() + " is not a " + kind_ + " class");
    }
    return bound->build();
  }

 private:
  class Builder : public ComponentArgs {
   public:
    using ComponentArgs::ComponentArgs;
    virtual std::shared_ptr<T> build() const = 0;
  };

  template <typename Options>
  class Bound final : public Builder {
   public:
    Bound(const std::string& name, const std::string& description, const Binder<Options>& bind,
          Maker<Options> make)
        : Builder(name, description), make_(std::move(make)) {
      bind(this->init_args(), options_);
    }
    std::shared_ptr<T> build() const override { return make_(options_); }

   private:
    Options options_{};
    Maker<Options> make_;
  };

  std::string kind_;
  Registry<ComponentArgs> registry_;
};

}  // namespace fulgur
