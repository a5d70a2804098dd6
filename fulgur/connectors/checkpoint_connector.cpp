#include "fulgur/connectors/checkpoint_connector.h"

#include <set>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/version.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/module.h"
#include "fulgur/optim/optimizer.h"
#include "fulgur/optim/optimizer_config.h"
#include "fulgur/optim/optimizer_state.h"
#include "fulgur/rng_states.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

using Dict = c10::impl::GenericDict;

// The length of a saved optimizer state's `param_groups`; 0 where it has none (its check says
// what is wrong with it).
size_t saved_param_group_count(const c10::IValue& state) {
  if (!state.isGenericDict()) return 0;
  const auto dict = state.toGenericDict();
  if (!dict.contains("param_groups") || !dict.at("param_groups").isList()) return 0;
  return dict.at("param_groups").toListRef().size();
}

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

// Every counter of total and current at `total` and `current`: the state of a loop between two
// of its iterations, which is what a checkpoint records.
Progress settled(int64_t total, int64_t current) {
  Progress p;
  p.total = {total, total, total, total};
  p.current = {current, current, current, current};
  return p;
}

c10::impl::GenericDict hparams_dict(const HParams& hparams) {
  auto d = make_checkpoint_dict();
  for (const auto& [k, v] : hparams) {
    d.insert(k, std::visit([](const auto& x) { return c10::IValue(x); }, v));
  }
  return d;
}

// Walks a checkpoint's nested dicts, raising CheckpointError that names the file and the key.
struct Walker {
  const std::string& source;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw CheckpointError(fmt::format("{} cannot resume training: \"{}\" {}", source, key, what));
  }
  const c10::IValue& at(const Dict& d, const std::string& key) const {
    auto it = d.find(key);
    if (it == d.end()) fail(key, "is missing");
    return it->value();
  }
  Dict dict(const Dict& d, const std::string& key) const {
    const auto& v = at(d, key);
    if (!v.isGenericDict()) fail(key, fmt::format("is a {}, not a dict", v.tagKind()));
    return v.toGenericDict();
  }
  c10::List<c10::IValue> list(const Dict& d, const std::string& key) const {
    const auto& v = at(d, key);
    if (!v.isList()) fail(key, fmt::format("is a {}, not a list", v.tagKind()));
    return v.toList();
  }
  int64_t integer(const Dict& d, const std::string& key) const {
    const auto& v = at(d, key);
    if (!v.isInt() || v.toInt() < 0) fail(key, "is not a count");
    return v.toInt();
  }
  ProgressCounter counter(const Dict& d, const std::string& key) const {
    const Dict c = dict(d, key);
    ProgressCounter out;
    out.ready = integer(c, "ready");
    out.completed = integer(c, "completed");
    // Optimizer step counters have no started/processed (Lightning's _ReadyCompletedTracker).
    out.started = c.contains("started") ? integer(c, "started") : out.completed;
    out.processed = c.contains("processed") ? integer(c, "processed") : out.completed;
    return out;
  }
  Progress progress(const Dict& d, const std::string& key) const {
    const Dict p = dict(d, key);
    return {counter(p, "total"), counter(p, "current")};
  }
};

// The fit loop's counters and resume point, read from a checkpoint's `loops`.
struct FitLoopState {
  Progress epoch;
  BatchProgress batch;
  OptimizerProgress optim;
  ResumePoint point;
  // Written without fulgur's loader position (by Lightning, whose plain DataLoader has none).
  bool loader_position_missing = false;
};

// fulgur's training-loader state, {epoch, position}, or nothing for another loader's state.
std::optional<ResumePoint> fulgur_loader_position(const Dict& fit, const Walker& w) {
  const Dict state = w.dict(fit, "state_dict");
  if (!state.contains("combined_loader")) return std::nullopt;
  const auto loaders = w.list(state, "combined_loader");
  if (loaders.size() != 1 || !loaders.get(0).isGenericDict()) return std::nullopt;
  const Dict loader = loaders.get(0).toGenericDict();
  if (!loader.contains("epoch") || !loader.contains("position")) return std::nullopt;
  return ResumePoint{w.integer(loader, "epoch"), w.integer(loader, "position"), 0};
}

// Reads the counters as Lightning saves them, from inside a batch's or an epoch's end hooks
// (so not yet all advanced), and settles them where the fit continues, by Lightning's restart
// rules: an epoch whose end hooks ran is done; a batch whose end hooks ran is done (processed
// one ahead of completed); a batch interrupted before is run again. fulgur's own checkpoints
// are saved settled and read back unchanged.
FitLoopState parse_fit_loop(const CheckpointDict& checkpoint, const std::string& source,
                            bool manual_optimization, int64_t accumulate_grad_batches) {
  const Walker w{source};
  const Dict fit = w.dict(w.dict(checkpoint, "loops"), "fit_loop");
  const Progress epochs = w.progress(fit, "epoch_progress");
  const Progress batches = w.progress(fit, "epoch_loop.batch_progress");
  const Dict batch_state = w.dict(fit, "epoch_loop.batch_progress");
  const bool is_last_batch = batch_state.contains("is_last_batch") &&
                             batch_state.at("is_last_batch").isBool() &&
                             batch_state.at("is_last_batch").toBool();
  // Lightning counts manual optimization's steps apart; older fulgur checkpoints did not.
  const std::string manual_key = "epoch_loop.manual_optimization.optim_step_progress";
  const Dict optim = w.dict(w.dict(fit, "epoch_loop.automatic_optimization.optim_progress"),
                            "optimizer");
  const Progress steps = manual_optimization && fit.contains(manual_key)
                             ? w.progress(fit, manual_key)
                             : w.progress(optim, "step");
  const Progress zero_grads = w.progress(optim, "zero_grad");
  const int64_t saved_batches_that_stepped =
      w.integer(w.dict(fit, "epoch_loop.state_dict"), "_batches_that_stepped");

  FitLoopState s;
  const ProgressCounter& b = batches.total;
  const bool after_batch_end = b.ready == b.started && b.started == b.processed &&
                               b.completed + 1 == b.processed;
  const bool epoch_done = epochs.current.processed > epochs.current.completed;
  if (epoch_done) {
    s.point.epoch = epochs.current.processed;
    s.point.batch = 0;
  } else {
    s.point.epoch = epochs.current.completed;
    s.point.batch = after_batch_end ? batches.current.processed : batches.current.completed;
  }
  // Lightning counts a batch's logging step after its end hooks and validation, so a
  // checkpoint from them holds the count before it (training_epoch_loop.py's reset()).
  const bool stepped = batches.current.ready % accumulate_grad_batches == 0 || is_last_batch;
  s.point.batches_that_stepped =
      saved_batches_that_stepped + (after_batch_end && stepped ? 1 : 0);

  const int64_t batches_before_epoch = batches.total.completed - batches.current.completed;
  s.epoch = settled(s.point.epoch, s.point.epoch);
  static_cast<Progress&>(s.batch) = settled(
      epoch_done ? batches.total.processed : batches_before_epoch + s.point.batch, s.point.batch);
  s.optim.step = settled(steps.total.completed, steps.current.completed);
  s.optim.zero_grad = settled(zero_grads.total.completed, zero_grads.current.completed);

  if (const auto loader = fulgur_loader_position(fit, w)) {
    if (loader->epoch != s.point.epoch || loader->batch != s.point.batch) {
      w.fail("loops", fmt::format("disagree: the loader is at epoch {} batch {}, the counters at "
                                  "epoch {} batch {}",
                                  loader->epoch, loader->batch, s.point.epoch, s.point.batch));
    }
  } else {
    s.loader_position_missing = s.point.batch > 0 && !is_last_batch;
  }
  return s;
}

}  // namespace

c10::impl::GenericDict CheckpointConnector::module_state_dict(const torch::nn::Module& module) {
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
  c.insert("fulgur_version", version());
  c.insert("state_dict", module_state_dict(module));

  // The loops as they stand between two iterations: at the resume point, where a fit restored
  // from this checkpoint continues.
  auto& fit = t.fit_loop();
  const auto& loop = fit.epoch_loop;
  const ResumePoint& point = loop.resume_point;
  auto fit_state = make_checkpoint_dict();
  auto loader_state = make_checkpoint_dict();
  loader_state.insert("epoch", point.epoch);
  loader_state.insert("position", point.batch);
  auto data_state = make_checkpoint_dict();
  c10::impl::GenericList loader_states(c10::AnyType::get());
  loader_states.push_back(loader_state);
  data_state.insert("combined_loader", loader_states);
  fit_state.insert("state_dict", data_state);
  fit_state.insert("epoch_progress", progress_dict(settled(point.epoch, point.epoch)));
  auto epoch_loop_state = make_checkpoint_dict();
  epoch_loop_state.insert("_batches_that_stepped", point.batches_that_stepped);
  fit_state.insert("epoch_loop.state_dict", epoch_loop_state);
  auto batch = progress_dict(settled(loop.batch_progress.total.processed, point.batch));
  batch.insert("is_last_batch", false);
  fit_state.insert("epoch_loop.batch_progress", batch);
  const auto& zero_grads = loop.optim_progress.zero_grad;
  // Lightning counts the optimizer steps of manual optimization apart from automatic's.
  const bool manual = !module.automatic_optimization();
  const auto steps = settled(loop.optim_progress.step.total.completed,
                             loop.optim_progress.step.current.completed);
  const auto no_steps = settled(0, 0);
  fit_state.insert("epoch_loop.manual_optimization.optim_step_progress",
                   progress_dict(manual ? steps : no_steps, /*with_started=*/false));
  auto optimizer = make_checkpoint_dict();
  optimizer.insert("step", progress_dict(manual ? no_steps : steps, /*with_started=*/false));
  optimizer.insert("zero_grad", progress_dict(settled(zero_grads.total.completed,
                                                      zero_grads.current.completed)));
  auto optim = make_checkpoint_dict();
  optim.insert("optimizer", optimizer);
  fit_state.insert("epoch_loop.automatic_optimization.optim_progress", optim);
  auto loops = make_checkpoint_dict();
  loops.insert("fit_loop", fit_state);
  // Lightning's validate, test and predict with ckpt_path read their own loop's entry (a
  // KeyError without it). Those loops are not the ones a fit validates with, so at a fit's
  // checkpoint their counters stand at zero, as Lightning saves them.
  for (const std::string name : {"validate_loop", "test_loop", "predict_loop"}) {
    auto progress = progress_dict(settled(0, 0));
    // Validation and test count batches with a _BatchProgress, prediction with a _Progress.
    if (name != "predict_loop") progress.insert("is_last_batch", false);
    auto stage = make_checkpoint_dict();
    stage.insert("state_dict", make_checkpoint_dict());
    stage.insert("batch_progress", progress);
    loops.insert(name, stage);
  }
  c.insert("loops", loops);

  // As Lightning: each one's hyperparameters only when it has any, beside the name of the
  // arguments they came from, "kwargs" for save_hyperparameters() over named values.
  if (!module.hparams().empty()) {
    c.insert("hparams_name", "kwargs");
    c.insert("hyper_parameters", hparams_dict(module.hparams()));
  }
  if (t.datamodule() != nullptr && !t.datamodule()->hparams().empty()) {
    c.insert("datamodule_hparams_name", "kwargs");
    c.insert("datamodule_hyper_parameters", hparams_dict(t.datamodule()->hparams()));
  }
  // Like the hyperparameters, in weights-only checkpoints too, as Lightning.
  if (t.datamodule() != nullptr) {
    auto state = t.datamodule()->state_dict();
    if (!state.isNone()) c.insert(t.datamodule()->name(), state);
  }

  if (!weights_only) {
    c10::impl::GenericList optimizer_states(c10::AnyType::get());
    for (const auto& o : t.optimizers()) optimizer_states.push_back(optimizer_state_dict(o->optimizer()));
    c.insert("optimizer_states", optimizer_states);
    c10::impl::GenericList schedulers(c10::AnyType::get());
    for (const auto& config : t.lr_scheduler_configs()) {
      schedulers.push_back(config.scheduler->state_dict());
    }
    c.insert("lr_schedulers", schedulers);
    c.insert("rng_states", collect_rng_states());
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

CheckpointConnector::KeyDifferences CheckpointConnector::key_differences(
    const torch::nn::Module& module, const c10::impl::GenericDict& state) {
  KeyDifferences differences;
  std::set<std::string> known;
  auto check = [&](const std::string& name) {
    known.insert(name);
    if (!state.contains(name)) differences.missing.push_back(name);
  };
  for (const auto& p : module.named_parameters(true)) check(p.key());
  for (const auto& b : module.named_buffers(true)) check(b.key());
  for (const auto& entry : state) {
    if (!entry.key().isString() || !known.count(entry.key().toStringRef())) {
      differences.unexpected.push_back(entry.key().isString() ? entry.key().toStringRef()
                                                              : "<not a name>");
    }
  }
  return differences;
}

void CheckpointConnector::check_module_state_dict(const torch::nn::Module& module,
                                                  const c10::impl::GenericDict& state,
                                                  bool strict, const std::string& source) {
  const auto [missing, unexpected] = key_differences(module, state);
  std::vector<std::string> mismatched;
  auto check = [&](const std::string& name, const torch::Tensor& target) {
    if (!state.contains(name)) return;
    const auto& v = state.at(name);
    if (!v.isTensor() || v.toTensor().sizes() != target.sizes()) {
      mismatched.push_back(fmt::format(
          "{} (checkpoint {}, model {})", name,
          v.isTensor() ? fmt::format("{}", fmt::join(v.toTensor().sizes(), "x")) : "not a tensor",
          fmt::format("{}", fmt::join(target.sizes(), "x"))));
    }
  };
  for (const auto& p : module.named_parameters(true)) check(p.key(), p.value());
  for (const auto& b : module.named_buffers(true)) check(b.key(), b.value());
  auto list = [](const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); };
  if (!mismatched.empty()) {
    throw CheckpointError(fmt::format("{} does not fit the model: size mismatch for {}", source,
                                      list(mismatched)));
  }
  if (strict && (!missing.empty() || !unexpected.empty())) {
    std::string msg = fmt::format("{} does not fit the model:", source);
    if (!missing.empty()) msg += fmt::format(" missing keys: {};", list(missing));
    if (!unexpected.empty()) msg += fmt::format(" unexpected keys: {};", list(unexpected));
    throw CheckpointError(msg + " set_strict_loading(false) on the Module loads what matches");
  }
}

void CheckpointConnector::load_module_state_dict(torch::nn::Module& module,
                                                 const c10::impl::GenericDict& state, bool strict,
                                                 const std::string& source) {
  check_module_state_dict(module, state, strict, source);
  torch::NoGradGuard no_grad;
  auto load = [&](const std::string& name, torch::Tensor target) {
    if (state.contains(name)) target.copy_(state.at(name).toTensor());
  };
  for (const auto& p : module.named_parameters(true)) load(p.key(), p.value());
  for (const auto& b : module.named_buffers(true)) load(b.key(), b.value());
}

CheckpointDict CheckpointConnector::load_model_checkpoint(const std::string& path) {
  Trainer& t = trainer_;
  auto checkpoint = t.strategy().load_checkpoint(path);
  if (!checkpoint.contains("state_dict") || !checkpoint.at("state_dict").isGenericDict()) {
    throw CheckpointError(path + " is not a model checkpoint: it has no \"state_dict\"");
  }
  // Lightning: the Module may migrate an old checkpoint before its weights are read.
  hooks::module(t, "on_load_checkpoint", [&](Module& m) { m.on_load_checkpoint(checkpoint); });
  return checkpoint;
}

void CheckpointConnector::restore_model(const std::string& path) {
  const auto checkpoint = load_model_checkpoint(path);
  restore_modules_and_callbacks(checkpoint, path);
}

void CheckpointConnector::restore_modules_and_callbacks(const CheckpointDict& checkpoint,
                                                        const std::string& path) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  load_module_state_dict(module, checkpoint.at("state_dict").toGenericDict(),
                         module.strict_loading(), path);
  if (DataModule* dm = t.datamodule(); dm != nullptr && checkpoint.contains(dm->name())) {
    dm->load_state_dict(checkpoint.at(dm->name()));
  }
  // A weights-only checkpoint has no callback states: no callback hears of it, as Lightning.
  if (checkpoint.contains("callbacks")) {
    const Dict callback_states = Walker{path}.dict(checkpoint, "callbacks");
    hooks::callbacks(t, "on_load_checkpoint",
                     [&](Callback& cb) { cb.on_load_checkpoint(t, module, checkpoint); });
    std::set<std::string> unclaimed;
    for (const auto& entry : callback_states) unclaimed.insert(entry.key().toStringRef());
    for (const auto& cb : t.callbacks()) {
      if (callback_states.contains(cb->state_key())) {
        cb->load_state_dict(callback_states.at(cb->state_key()));
        unclaimed.erase(cb->state_key());
      }
    }
    if (!unclaimed.empty() && t.is_global_zero()) {
      warn(fmt::format("Be aware that when using `ckpt_path`, callbacks used to create the "
                       "checkpoint need to be provided during `Trainer` instantiation. Please add "
                       "the following callbacks: [{}].",
                       fmt::join(unclaimed, ", ")));
    }
  }
  auto& precision = *t.strategy().precision();
  if (checkpoint.contains(precision.state_key())) {
    precision.load_state_dict(checkpoint.at(precision.state_key()));
  }
}

void CheckpointConnector::restore_training(const std::string& path) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  auto checkpoint = load_model_checkpoint(path);
  const Walker w{path};
  if (!checkpoint.contains("optimizer_states")) {
    throw CheckpointError(fmt::format(
        "{} holds the model only (saved with save_weights_only=true), so training cannot resume "
        "from it; use it with validate/test/predict, or resume from a full checkpoint",
        path));
  }

  // ---- check everything before changing anything ----
  const auto weights = checkpoint.at("state_dict").toGenericDict();
  check_module_state_dict(module, weights, module.strict_loading(), path);
  const auto optimizer_states = w.list(checkpoint, "optimizer_states");
  if (optimizer_states.size() != t.optimizers().size()) {
    throw CheckpointError(fmt::format(
        "{} was saved with {} optimizer(s) but configure_optimizers returned {}; resume with the "
        "optimizers it was written with",
        path, optimizer_states.size(), t.optimizers().size()));
  }
  const auto scheduler_states = w.list(checkpoint, "lr_schedulers");
  if (scheduler_states.size() != t.lr_scheduler_configs().size()) {
    throw CheckpointError(fmt::format(
        "{} was saved with {} LR scheduler(s) but configure_optimizers returned {}", path,
        scheduler_states.size(), t.lr_scheduler_configs().size()));
  }
  bool groups_added_later = false;
  for (size_t i = 0; i < optimizer_states.size(); ++i) {
    groups_added_later |= saved_param_group_count(optimizer_states.get(i)) >
                          t.optimizers()[i]->param_groups().size();
  }
  if (!groups_added_later) {
    check_optimizers_and_schedulers(optimizer_states, scheduler_states, path);
  }
  const FitLoopState loops = parse_fit_loop(checkpoint, path, !module.automatic_optimization(),
                                            t.accumulate_grad_batches());
  const int64_t restored_epoch = loops.epoch.current.completed;
  if (const auto max_epochs = t.max_epochs();
      max_epochs && *max_epochs != -1 && restored_epoch > *max_epochs) {
    throw MisconfigurationError(fmt::format(
        "You restored a checkpoint with current_epoch={}, but you have set Trainer(max_epochs={}).",
        restored_epoch, *max_epochs));
  }
  std::optional<Dict> rng;
  if (checkpoint.contains("rng_states")) {
    rng = w.dict(checkpoint, "rng_states");
    check_rng_states(*rng, path);
  }

  // ---- restore, in Lightning's order ----
  if (loops.loader_position_missing) {
    // fulgur's loader then skips the batches the counters say were done, in its own order.
    warn("You're resuming from a checkpoint that ended before the epoch ended and your dataloader "
         "is not resumable. This can cause unreliable results if further training is done. "
         "Consider using an end-of-epoch checkpoint or make your dataloader resumable by "
         "implementing the `state_dict` / `load_state_dict` interface.");
  }
  restore_modules_and_callbacks(checkpoint, path);
  auto& fit = t.fit_loop();
  fit.epoch_progress = loops.epoch;
  fit.epoch_loop.batch_progress = loops.batch;
  fit.epoch_loop.optim_progress = loops.optim;
  fit.epoch_loop.batches_that_stepped = loops.point.batches_that_stepped;
  fit.epoch_loop.resume_point = loops.point;
  fit.resume_at(loops.point, rng, path);
  pending_ = PendingStates{path, optimizer_states, scheduler_states};
}

void CheckpointConnector::check_optimizers_and_schedulers(
    const c10::List<c10::IValue>& optimizer_states,
    const c10::List<c10::IValue>& scheduler_states, const std::string& path) const {
  Trainer& t = trainer_;
  for (size_t i = 0; i < optimizer_states.size(); ++i) {
    check_optimizer_state_dict(t.optimizers()[i]->optimizer(), optimizer_states.get(i), path);
  }
  auto& schedulers = t.lr_scheduler_configs();
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const c10::IValue state = scheduler_states.get(i);
    if (!state.isGenericDict()) {
      Walker{path}.fail("lr_schedulers", "holds a value that is not a dict");
    }
    schedulers[i].scheduler->check_state_dict(state.toGenericDict(), path);
  }
}

void CheckpointConnector::restore_optimizers_and_schedulers() {
  if (!pending_) return;
  const PendingStates states = std::move(*pending_);
  pending_.reset();
  check_optimizers_and_schedulers(states.optimizers, states.schedulers, states.path);
  Trainer& t = trainer_;
  for (size_t i = 0; i < states.optimizers.size(); ++i) {
    load_optimizer_state_dict(t.optimizers()[i]->optimizer(), states.optimizers.get(i),
                              states.path);
  }
  auto& schedulers = t.lr_scheduler_configs();
  for (size_t i = 0; i < schedulers.size(); ++i) {
    schedulers[i].scheduler->load_state_dict(states.schedulers.get(i).toGenericDict(),
                                             states.path);
  }
}

}  // namespace fulgur
