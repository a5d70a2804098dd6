#include "fulgur/optim/lr_lambdas.h"

#include <ATen/core/List.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

std::vector<LrLambda> lr_lambdas_per_group(const std::string& scheduler,
                                           std::vector<LrLambda> lambdas, size_t groups) {
  if (lambdas.size() == 1 && groups > 1) lambdas.assign(groups, lambdas.front());
  if (lambdas.size() != groups) {
    throw ConfigError(fmt::format(
        "{}: expected {} lr_lambdas (one per param group, or one for all of them), got {}",
        scheduler, groups, lambdas.size()));
  }
  for (size_t i = 0; i < lambdas.size(); ++i) {
    if (!lambdas[i]) {
      throw ConfigError(fmt::format("{}: lr_lambda {} is an empty function", scheduler, i));
    }
  }
  return lambdas;
}

void save_lr_lambdas(c10::impl::GenericDict& state, size_t count) {
  c10::impl::GenericList nones(c10::AnyType::get());
  for (size_t i = 0; i < count; ++i) nones.push_back(c10::IValue());
  state.insert("lr_lambdas", nones);
}

void check_lr_lambdas(const SchedulerStateReader& reader, size_t count) {
  const c10::impl::GenericList saved = reader.list("lr_lambdas");
  if (saved.size() != count) {
    reader.fail(
        fmt::format("has {} entries in \"lr_lambdas\" for {} functions", saved.size(), count));
  }
  for (const c10::IValue& entry : saved) {
    if (!entry.isNone()) {
      reader.fail(
          "holds a callable object's attributes in \"lr_lambdas\", which a C++ function cannot "
          "take");
    }
  }
}

}  // namespace fulgur
