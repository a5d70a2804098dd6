#pragma once
// Test doubles for the connector tests: a GPU-like accelerator with a chosen number of devices,
// and scoped registrations that put the registries back as they were.
#include <memory>
#include <string>

#include "fulgur/accelerators/accelerator.h"
#include "fulgur/accelerators/accelerator_registry.h"
#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/accelerators/device_parser.h"

namespace fulgur::testing {

class FakeGpuAccelerator : public Accelerator {
 public:
  FakeGpuAccelerator(std::string name, int count, bool available = true)
      : name_(std::move(name)), count_(count), available_(available) {}
  std::string name() const override { return name_; }
  bool is_available() const override { return available_; }
  int auto_device_count() const override { return count_; }
  std::vector<int> parse_devices(const Devices& devices) const override {
    return parse_gpu_ids(devices, count_, name_);
  }
  std::vector<c10::Device> get_parallel_devices(const std::vector<int>& ids) const override {
    std::vector<c10::Device> out;
    for (int id : ids) out.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(id));
    return out;
  }
  void setup_device(const c10::Device& device) override { last_setup = device.str(); }
  std::map<std::string, double> device_stats(const c10::Device&) const override { return {}; }

  std::string last_setup;

 private:
  std::string name_;
  int count_;
  bool available_;
};

// Registers a fake GPU accelerator under `name` for the lifetime of this object.
class ScopedFakeAccelerator {
 public:
  ScopedFakeAccelerator(std::string name, int count, bool available = true) : name_(name) {
    accelerator_registry().add(name_, [name, count, available] {
      return std::make_shared<FakeGpuAccelerator>(name, count, available);
    });
  }
  ~ScopedFakeAccelerator() { accelerator_registry().remove(name_); }
  ScopedFakeAccelerator(const ScopedFakeAccelerator&) = delete;
  ScopedFakeAccelerator& operator=(const ScopedFakeAccelerator&) = delete;

 private:
  std::string name_;
};

// Replaces "cuda" (and so "gpu" and "auto") with a fake; restores the real CUDAAccelerator.
class ScopedFakeCuda {
 public:
  ScopedFakeCuda(int count, bool available) {
    accelerator_registry().add("cuda", [count, available] {
      return std::make_shared<FakeGpuAccelerator>("cuda", count, available);
    });
  }
  ~ScopedFakeCuda() {
    accelerator_registry().add("cuda", [] { return std::make_shared<CUDAAccelerator>(); });
  }
  ScopedFakeCuda(const ScopedFakeCuda&) = delete;
  ScopedFakeCuda& operator=(const ScopedFakeCuda&) = delete;
};

}  // namespace fulgur::testing
