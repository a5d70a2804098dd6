#pragma once
// The callbacks a LightningCLI config may choose by class name under `trainer.callbacks`, with
// their init args: fulgur's own (EarlyStopping, LearningRateMonitor, ModelCheckpoint,
// OnExceptionCheckpoint, DeviceStatsMonitor, GradientAccumulationScheduler, ThroughputMonitor,
// ModelSummary, Timer) and any the program adds:
//   fulgur::callback_registry().add<MyOptions>("MyCallback", "one line", bind, make);
// (see component_registry.h).
#include "fulgur/callbacks/callback.h"
#include "fulgur/cli/component_registry.h"

namespace fulgur {

ComponentRegistry<Callback>& callback_registry();

}  // namespace fulgur
