#include "batch_counter.h"

#include <fmt/format.h>

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace extending {

void BatchCounter::on_fit_start(fulgur::Trainer& trainer, fulgur::Module& module) {
  // The Trainer's accessors forward to the one Strategy and the parts it owns.
  fmt::print("[callback] {}: fit of {} on accelerator={} strategy={} precision={}\n", name(),
             module.module_name(), trainer.accelerator().name(), trainer.strategy().name(),
             trainer.precision_plugin().name());
}

void BatchCounter::on_train_epoch_start(fulgur::Trainer&, fulgur::Module&) { epoch_batches_ = 0; }

void BatchCounter::on_train_batch_end(fulgur::Trainer&, fulgur::Module&, const torch::Tensor&,
                                      fulgur::Batch&, int64_t) {
  ++epoch_batches_;
  ++total_batches_;
}

void BatchCounter::on_before_optimizer_step(fulgur::Trainer&, fulgur::Module& module,
                                            fulgur::Optimizer&) {
  // Runs after the precision plugin unscaled the gradients: these are the true ones.
  for (const auto& parameter : module.parameters()) {
    if (parameter.grad().defined() && !parameter.grad().isfinite().all().item<bool>()) {
      throw fulgur::Error(
          fmt::format("{}: a gradient is not finite at step {}", name(), module.global_step()));
    }
  }
  ++optimizer_steps_seen_;
}

void BatchCounter::on_train_epoch_end(fulgur::Trainer& trainer, fulgur::Module&) {
  if (!options_.print_epochs) return;
  // The epoch means of values logged with on_epoch=true are in callback_metrics by now.
  const auto& metrics = trainer.callback_metrics();
  const auto loss = metrics.find("train_loss");
  fmt::print(
      "[callback] {}: epoch {} ended after {} batches, train_loss {}\n", name(),
      trainer.current_epoch(), epoch_batches_,
      loss == metrics.end() ? std::string("not logged") : fmt::format("{:.4f}", loss->second));
}

c10::IValue BatchCounter::state_dict() {
  c10::Dict<std::string, int64_t> state;
  state.insert("batches", total_batches_);
  return state;
}

void BatchCounter::load_state_dict(const c10::IValue& state) {
  if (state.isGenericDict() && state.toGenericDict().contains("batches")) {
    total_batches_ = state.toGenericDict().at("batches").toInt();
  }
}

}  // namespace extending
