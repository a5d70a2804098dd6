#include "fulgur/rng_states.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <mutex>

#include "fulgur/compat/cuda_device.h"
#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"

namespace fulgur {
namespace {

at::Tensor cpu_state() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_cpu_state(const at::Tensor& state) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

c10::impl::GenericDict collect_rng_states() {
  auto states = make_checkpoint_dict();
  states.insert("torch", cpu_state());
  c10::List<at::Tensor> cuda;
  for (const auto& s : compat::cuda_rng_states()) cuda.push_back(s);
  states.insert("torch.cuda", cuda);
  return states;
}

namespace {

struct ParsedStates {
  at::Tensor cpu;
  std::vector<at::Tensor> cuda;
};

ParsedStates parse(const c10::impl::GenericDict& states, const std::string& source) {
  auto malformed = [&](const std::string& what) {
    return CheckpointError(fmt::format("{}: the random generator states are malformed ({})",
                                       source, what));
  };
  at::Tensor cpu;
  if (states.contains("torch")) {
    const auto& v = states.at("torch");
    if (!v.isTensor() || v.toTensor().scalar_type() != at::kByte) {
      throw malformed("\"torch\" is not a uint8 tensor");
    }
    cpu = v.toTensor();
    // The generator checks the size itself; ask first, so nothing is set when it would fail.
    if (cpu.numel() != cpu_state().numel()) {
      throw malformed(fmt::format("\"torch\" holds {} bytes, this LibTorch's CPU generator {}",
                                  cpu.numel(), cpu_state().numel()));
    }
  }
  std::vector<at::Tensor> cuda;
  if (states.contains("torch.cuda")) {
    const auto& v = states.at("torch.cuda");
    if (!v.isList()) throw malformed("\"torch.cuda\" is not a list");
    for (const auto& item : v.toListRef()) {
      if (!item.isTensor()) throw malformed("\"torch.cuda\" holds a value that is not a tensor");
      cuda.push_back(item.toTensor());
    }
  }
  return {cpu, cuda};
}

}  // namespace

void check_rng_states(const c10::impl::GenericDict& states, const std::string& source) {
  parse(states, source);
}

void restore_rng_states(const c10::impl::GenericDict& states, const std::string& source) {
  const ParsedStates parsed = parse(states, source);
  if (parsed.cpu.defined()) set_cpu_state(parsed.cpu);
  compat::set_cuda_rng_states(parsed.cuda);
}

RngIsolation::RngIsolation() : saved_(collect_rng_states()) {}

RngIsolation::~RngIsolation() {
  try {
    restore_rng_states(saved_, "saved generator states");
  } catch (...) {
    // States this object collected itself always restore; nothing to report from a destructor.
  }
}

}  // namespace fulgur
