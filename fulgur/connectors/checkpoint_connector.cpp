#include "fulgur/connectors/checkpoint_connector.h"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/callbacks/callback.h"
#include "fulgur/errors.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/module.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

#ifndef FULGUR_VERSION
#define FULGUR_VERSION "0.0.0"
#endif

namespace fulgur {
namespace {

c10::impl::GenericDict counter_dict(const ProgressCounter& c, bool with_started) {
  auto d = make_checkpoint_dict();
  d.insert("ready", c.ready);
  if (with_started) d.insert("started", c.started);
  if (with_started) d.insert("processed", c.processed);
  d.insert("completed", c.completed);
  return d;
}

c10::impl::GenericDict progress_dict(const Progress& p, bool with_started = true) {
  auto d = make_checkpoint_dict();
  d.insert("total", counter_dict(p.total, with_started));
  d.insert("current", counter_dict(p.current, with_started));
  return d;
}

c10::IValue hparam_value(const HParamValue& v) {
  return std::visit([](const auto& x) { return c10::IValue(x); }, v);
}

}  // namespace

c10::impl::GenericDict CheckpointConnector::module_state_dict(const Module& module) {
  auto d = make_checkpoint_dict();
  for (const auto& p : module.named_parameters(/*recurse=*/true)) d.insert(p.key(), p.value().detach());
  for (const auto& b : module.named_buffers(/*recurse=*/true)) d.insert(b.key(), b.value().detach());
  return d;
}

CheckpointDict CheckpointConnector::dump(bool weights_only) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  auto c = make_checkpoint_dict();
  c.insert("epoch", t.current_epoch());
  c.insert("global_step", t.global_step());
  c.insert("pytorch-lightning_version", kLightningVersion);
  c.insert("fulgur_version", FULGUR_VERSION);
  c.insert("state_dict", module_state_dict(module));

  auto& fit = t.fit_loop();
  auto fit_state = make_checkpoint_dict();
  auto epoch_loop_state = make_checkpoint_dict();
  epoch_loop_state.insert("_batches_that_stepped", fit.epoch_loop.batches_that_stepped);
  fit_state.insert("epoch_progress", progress_dict(fit.epoch_progress));
  fit_state.insert("epoch_loop.state_dict", epoch_loop_state);
  auto batch = progress_dict(fit.epoch_loop.batch_progress);
  batch.insert("is_last_batch", fit.epoch_loop.batch_progress.is_last_batch);
  fit_state.insert("epoch_loop.batch_progress", batch);
  auto optim = make_checkpoint_dict();
  auto optimizer = make_checkpoint_dict();
  optimizer.insert("step", progress_dict(fit.epoch_loop.optim_progress.step, false));
  optimizer.insert("zero_grad", progress_dict(fit.epoch_loop.optim_progress.zero_grad));
  optim.insert("optimizer", optimizer);
  fit_state.insert("epoch_loop.automatic_optimization.optim_progress", optim);
  auto loops = make_checkpoint_dict();
  loops.insert("fit_loop", fit_state);
  c.insert("loops", loops);

  auto hparams = make_checkpoint_dict();
  for (const auto& [k, v] : module.hparams()) hparams.insert(k, hparam_value(v));
  c.insert("hyper_parameters", hparams);

  if (!weights_only) {
    auto callbacks = make_checkpoint_dict();
    for (const auto& cb : t.callbacks()) {
      auto state = cb->state_dict();
      if (!state.isNone()) callbacks.insert(cb->state_key(), state);
    }
    c.insert("callbacks", callbacks);
    auto precision_state = t.strategy().precision()->state_dict();
    if (!precision_state.isNone()) c.insert(t.strategy().precision()->state_key(), precision_state);
    hooks::callbacks(t, "on_save_checkpoint",
                     [&](Callback& cb) { cb.on_save_checkpoint(t, module, c); });
  }
  hooks::module(t, "on_save_checkpoint", [&](Module& m) { m.on_save_checkpoint(c); });
  return c;
}

void CheckpointConnector::load_module_state_dict(Module& module,
                                                 const c10::impl::GenericDict& state, bool strict,
                                                 const std::string& source) {
  std::vector<std::pair<std::string, torch::Tensor>> targets;
  for (const auto& p : module.named_parameters(true)) targets.emplace_back(p.key(), p.value());
  for (const auto& b : module.named_buffers(true)) targets.emplace_back(b.key(), b.value());

  std::vector<std::string> missing, mismatched, unexpected;
  std::set<std::string> known;
  for (const auto& [name, target] : targets) {
    known.insert(name);
    if (!state.contains(name)) {
      missing.push_back(name);
      continue;
    }
    const auto& v = state.at(name);
    if (!v.isTensor() || v.toTensor().sizes() != target.sizes()) {
      mismatched.push_back(fmt::format(
          "{} (checkpoint {}, model {})", name,
          v.isTensor() ? fmt::format("{}", fmt::join(v.toTensor().sizes(), "x")) : "not a tensor",
          fmt::format("{}", fmt::join(target.sizes(), "x"))));
    }
  }
  for (const auto& entry : state) {
    if (!known.count(entry.key().toStringRef())) unexpected.push_back(entry.key().toStringRef());
  }
  auto list = [](const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); };
  if (!mismatched.empty()) {
    throw CheckpointError(fmt::format("{} does not fit the model: size mismatch for {}", source,
                                      list(mismatched)));
  }
  if (strict && (!missing.empty() || !unexpected.empty())) {
    std::string msg = fmt::format("{} does not fit the model:", source);
    if (!missing.empty()) msg += fmt::format(" missing keys: {};", list(missing));
    if (!unexpected.empty()) msg += fmt::format(" unexpected keys: {};", list(unexpected));
    throw CheckpointError(msg + " pass strict=false to load what matches");
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, target] : targets) {
    if (state.contains(name)) target.copy_(state.at(name).toTensor());
  }
}

void CheckpointConnector::restore_model(const std::string& path, bool strict) {
  Trainer& t = trainer_;
  auto checkpoint = t.strategy().load_checkpoint(path);
  if (!checkpoint.contains("state_dict") || !checkpoint.at("state_dict").isGenericDict()) {
    throw CheckpointError(path + " is not a model checkpoint: it has no \"state_dict\"");
  }
  hooks::module(t, "on_load_checkpoint", [&](Module& m) { m.on_load_checkpoint(checkpoint); });
  load_module_state_dict(*t.module(), checkpoint.at("state_dict").toGenericDict(), strict, path);
}

}  // namespace fulgur
