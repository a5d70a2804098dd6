#include "fulgur/precision/mixed_precision.h"

#include <fmt/format.h>

#include "fulgur/compat/autocast_scope.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

class AutocastForward : public ForwardScope {
 public:
  AutocastForward(c10::DeviceType device, c10::ScalarType dtype) : scope_(device, dtype) {}

 private:
  compat::AutocastScope scope_;
};

}  // namespace

MixedPrecision::MixedPrecision(c10::ScalarType dtype, c10::DeviceType device) : dtype_(dtype) {
  if (dtype != torch::kBFloat16) {
    throw ConfigError(fmt::format(
        "MixedPrecision({}): only bfloat16 (\"bf16-mixed\") is available; float16 "
        "(\"16-mixed\") needs loss scaling, which is still to come",
        c10::toString(dtype)));
  }
  set_device_type(device);
}

void MixedPrecision::set_device_type(c10::DeviceType device) {
  if (!compat::AutocastScope::supports(device, dtype_)) {
    throw ConfigError(fmt::format("precision=\"{}\" cannot autocast on {} with this LibTorch",
                                  name(), c10::DeviceTypeName(device, /*lower_case=*/true)));
  }
  device_ = device;
}

std::unique_ptr<ForwardScope> MixedPrecision::forward_context() {
  return std::make_unique<AutocastForward>(device_, dtype_);
}

}  // namespace fulgur
