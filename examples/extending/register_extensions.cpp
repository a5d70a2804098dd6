#include "register_extensions.h"

#include <memory>

#include "batch_counter.h"
#include "fulgur/accelerators/accelerator_registry.h"
#include "fulgur/cli/callback_registry.h"
#include "fulgur/precision/precision_registry.h"
#include "fulgur/strategies/strategy_registry.h"
#include "static_scale_precision.h"
#include "timed_strategy.h"
#include "traced_cpu_accelerator.h"

namespace extending {

void register_extensions() {
  // Each factory makes a fresh part: every Trainer gets its own.
  fulgur::accelerator_registry().add(TracedCPUAccelerator::kName,
                                     [] { return std::make_shared<TracedCPUAccelerator>(); });
  fulgur::strategy_registry().add(TimedStrategy::kName,
                                  [] { return std::make_shared<TimedStrategy>(); });
  fulgur::precision_registry().add(StaticScalePrecision::kName,
                                   [] { return std::make_shared<StaticScalePrecision>(); });
  fulgur::callback_registry().add<BatchCounterOptions>(
      "BatchCounter", "prints the batches and train_loss of each training epoch",
      [](fulgur::OptionSchema& args, BatchCounterOptions& o) {
        args.add("print_epochs", o.print_epochs, "a line at each training epoch's end");
      },
      [](const BatchCounterOptions& o) { return std::make_shared<BatchCounter>(o); });
}

}  // namespace extending
