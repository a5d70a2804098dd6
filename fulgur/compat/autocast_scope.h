#pragma once
// Autocast behind one RAII scope. LibTorch 1.13 has per-device functions (set_cpu_enabled,
// set_enabled for CUDA, ...); 2.4+ a device-generic API. Only autocast_scope.cpp knows which.
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace fulgur::compat {

// While alive, operations on `device` autocast to `dtype` (matmuls and convolutions in the low
// precision, reductions and losses in float32). Scopes nest: each restores the state it found,
// and the outermost clears autocast's cache of cast weights, as torch.autocast does.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

  // Whether this LibTorch autocasts `device` to `dtype` (1.13's CPU autocast: bfloat16 only).
  static bool supports(c10::DeviceType device, c10::ScalarType dtype);
  static bool is_enabled(c10::DeviceType device);
  static c10::ScalarType dtype(c10::DeviceType device);

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
  bool previous_cache_enabled_;
};

// Whether LibTorch's CPU kernels compute in float16 (matrix products, convolutions): not in
// 1.13, which makes "16-true" unusable on the CPU there.
bool cpu_computes_float16();

}  // namespace fulgur::compat
