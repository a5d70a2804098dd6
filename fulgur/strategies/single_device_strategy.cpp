#include "fulgur/strategies/single_device_strategy.h"

namespace fulgur {

SingleDeviceStrategy::SingleDeviceStrategy(c10::Device device) : device_(device) {
  parallel_devices_ = {device};
}

c10::Device SingleDeviceStrategy::root_device() const {
  if (device_) return *device_;
  if (!parallel_devices_.empty()) return parallel_devices_.front();
  return c10::Device(c10::kCPU);
}

}  // namespace fulgur
