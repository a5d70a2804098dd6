#pragma once
// One process, one device: every collective is the identity. The root device is the one given
// to the constructor, else the first (only) parallel device the connector set, else the CPU.
#include <optional>

#include "fulgur/strategies/strategy.h"

namespace fulgur {

class SingleDeviceStrategy : public Strategy {
 public:
  SingleDeviceStrategy() = default;
  // Pins the device; it also becomes the strategy's only parallel device, so the connector
  // picks the matching accelerator.
  explicit SingleDeviceStrategy(c10::Device device);
  std::string name() const override { return "single_device"; }
  c10::Device root_device() const override;

 private:
  std::optional<c10::Device> device_;
};

}  // namespace fulgur
