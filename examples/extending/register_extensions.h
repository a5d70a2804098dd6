#pragma once
// Adds the example's parts to fulgur's registries, so that they can be chosen by name:
//   accelerator "traced_cpu"          -> TracedCPUAccelerator
//   strategy    "timed_single_device" -> TimedStrategy
//   precision   "32-static-scale"     -> StaticScalePrecision(1024)
//   callback    "BatchCounter"        -> BatchCounter (for LightningCLI's trainer.callbacks)
// Call it once, before building a Trainer (or parsing a LightningCLI) that names them.
namespace extending {

void register_extensions();

}  // namespace extending
