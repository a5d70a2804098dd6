#pragma once
// How loops call hooks: callbacks first, then the Module (Lightning's order), each call inside
// a LoggerConnector scope naming the hook, so `log()` knows its defaults.
#include "fulgur/callbacks/callback.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace fulgur::hooks {

// Calls `fn(callback)` for every callback (optionally only those that do / do not run after
// the Module at on_train_epoch_end).
template <typename Fn>
void callbacks(Trainer& trainer, const char* fx, Fn&& fn) {
  LoggerConnector::FxScope scope(trainer.logger_connector(), fx);
  for (const auto& cb : trainer.callbacks()) fn(*cb);
}

template <typename Fn>
decltype(auto) module(Trainer& trainer, const char* fx, Fn&& fn) {
  LoggerConnector::FxScope scope(trainer.logger_connector(), fx);
  return fn(*trainer.module());
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
