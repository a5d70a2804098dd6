#pragma once
// How loops call hooks: callbacks first, then the Module (Lightning's order), each call inside
// a LoggerConnector scope naming the hook, so `log()` knows its defaults, and timed under
// Lightning's action name when the Trainer has a profiler.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

#include "fulgur/callbacks/callback.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/data/data_module.h"
#include "fulgur/module.h"
#include "fulgur/profilers/profiler.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur::hooks {

// Calls `fn(callback)` for every callback (optionally only those that do / do not run after
// the Module at on_train_epoch_end).
template <typename Fn>
void callbacks(Trainer& trainer, const char* fx, Fn&& fn) {
  LoggerConnector::FxScope scope(trainer.logger_connector(), fx);
  for (const auto& cb : trainer.callbacks()) {
    ProfiledAction timed(trainer.profiler(),
                         [&] { return "[Callback]" + cb->state_key() + "." + fx; });
    fn(*cb);
  }
}

template <typename Fn>
decltype(auto) module(Trainer& trainer, const char* fx, Fn&& fn) {
  LoggerConnector::FxScope scope(trainer.logger_connector(), fx);
  ProfiledAction timed(trainer.profiler(), [&] {
    return "[LightningModule]" + trainer.module()->module_name() + "." + fx;
  });
  return fn(*trainer.module());
}

// The Strategy's class name without namespaces, as Lightning's type(strategy).__name__:
// "SingleDeviceStrategy", "DDPStrategy", or a user's own strategy class.
inline std::string strategy_class_name(const Strategy& strategy) {
  const char* mangled = typeid(strategy).name();
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  const std::string name = status == 0 ? demangled.get() : mangled;
  const auto colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

// Lightning's profiler name for the Strategy's `fx`.
inline std::string strategy_action(const Trainer& trainer, const char* fx) {
  return "[Strategy]" + strategy_class_name(trainer.strategy()) + "." + fx;
}

// The steps (training_step, validation_step, ...): the Module's, run by the Strategy.
template <typename Fn>
decltype(auto) strategy(Trainer& trainer, const char* fx, Fn&& fn) {
  LoggerConnector::FxScope scope(trainer.logger_connector(), fx);
  ProfiledAction timed(trainer.profiler(), [&] { return strategy_action(trainer, fx); });
  return fn(*trainer.module());
}

template <typename Fn>
decltype(auto) datamodule(Trainer& trainer, const char* fx, Fn&& fn) {
  DataModule& dm = *trainer.datamodule();
  ProfiledAction timed(trainer.profiler(),
                       [&] { return "[LightningDataModule]" + dm.name() + "." + fx; });
  return fn(dm);
}

// The Strategy's batch_to_device, timed as Lightning's.
inline Batch batch_to_device(Trainer& trainer, Batch batch) {
  ProfiledAction timed(trainer.profiler(),
                       [&] { return strategy_action(trainer, "batch_to_device"); });
  return trainer.strategy().batch_to_device(*trainer.module(), std::move(batch));
}

// The common case: the same hook on every callback, then on the Module.
#define FULGUR_CALL_HOOK(trainer, hook, ...)                                               \
  do {                                                                                     \
    ::fulgur::hooks::callbacks((trainer), #hook,                                           \
                               [&](::fulgur::Callback& cb_) {                              \
                                 cb_.hook((trainer), *(trainer).module() __VA_OPT__(, ) __VA_ARGS__);  \
                               });                                                         \
    ::fulgur::hooks::module((trainer), #hook,                                              \
                            [&](::fulgur::Module& m_) { return m_.hook(__VA_ARGS__); });   \
  } while (0)

}  // namespace fulgur::hooks
