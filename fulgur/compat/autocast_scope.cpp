#include "fulgur/compat/autocast_scope.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "fulgur/errors.h"

// LibTorch 2.4 made autocast device-generic and deprecated the per-device functions.
#define FULGUR_DEVICE_GENERIC_AUTOCAST \
  (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))

namespace fulgur::compat {
namespace {

void require_cpu_or_cuda(c10::DeviceType device) {
  if (device != c10::kCPU && device != c10::kCUDA) {
    throw ConfigError(std::string("autocast is available on cpu and cuda, not on ") +
                      c10::DeviceTypeName(device, /*lower_case=*/true));
  }
}

void set_enabled(c10::DeviceType device, bool enabled) {
#if FULGUR_DEVICE_GENERIC_AUTOCAST
  at::autocast::set_autocast_enabled(device, enabled);
#else
  device == c10::kCPU ? at::autocast::set_cpu_enabled(enabled) : at::autocast::set_enabled(enabled);
#endif
}

void set_dtype(c10::DeviceType device, c10::ScalarType dtype) {
#if FULGUR_DEVICE_GENERIC_AUTOCAST
  at::autocast::set_autocast_dtype(device, dtype);
#else
  device == c10::kCPU ? at::autocast::set_autocast_cpu_dtype(dtype)
                      : at::autocast::set_autocast_gpu_dtype(dtype);
#endif
}

}  // namespace

bool AutocastScope::is_enabled(c10::DeviceType device) {
#if FULGUR_DEVICE_GENERIC_AUTOCAST
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

c10::ScalarType AutocastScope::dtype(c10::DeviceType device) {
#if FULGUR_DEVICE_GENERIC_AUTOCAST
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::kCPU ? at::autocast::get_autocast_cpu_dtype()
                             : at::autocast::get_autocast_gpu_dtype();
#endif
}

bool AutocastScope::supports(c10::DeviceType device, c10::ScalarType dtype) {
  if (dtype != c10::kBFloat16 && dtype != c10::kHalf) return false;
  if (device == c10::kCUDA) return true;
  // CPU autocast learned float16 in LibTorch 2.1.
  return device == c10::kCPU &&
         (dtype == c10::kBFloat16 || TORCH_VERSION_MAJOR > 2 ||
          (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1));
}

AutocastScope::AutocastScope(c10::DeviceType device, c10::ScalarType dtype)
    : device_(device),
      previous_enabled_((require_cpu_or_cuda(device), is_enabled(device))),
      previous_dtype_(AutocastScope::dtype(device)),
      previous_cache_enabled_(at::autocast::is_autocast_cache_enabled()) {
  set_enabled(device_, true);
  set_dtype(device_, dtype);
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(true);
}

AutocastScope::~AutocastScope() {
  // The cast weights are only valid while they do not change: the next step updates them.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_enabled(device_, previous_enabled_);
  set_dtype(device_, previous_dtype_);
  at::autocast::set_autocast_cache_enabled(previous_cache_enabled_);
}

bool cpu_computes_float16() {
  return TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1);
}

}  // namespace fulgur::compat
