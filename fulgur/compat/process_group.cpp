#include "fulgur/compat/process_group.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include <exception>

#include "fulgur/errors.h"

namespace fulgur::compat {
namespace {

c10d::ReduceOp to_c10d(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Sum:
      return c10d::ReduceOp::SUM;
    case CollectiveOp::Min:
      return c10d::ReduceOp::MIN;
    case CollectiveOp::Max:
      return c10d::ReduceOp::MAX;
  }
  return c10d::ReduceOp::SUM;
}

// What to do about a rendezvous failure, from c10d's message.
std::string rendezvous_advice(const std::string& what, const ProcessGroupOptions& o) {
  if (what.find("Address already in use") != std::string::npos) {
    return fmt::format("port {} is already in use on this machine; set MASTER_PORT to a free port",
                       o.port);
  }
  if (what.find("timed out") != std::string::npos || what.find("Timeout") != std::string::npos) {
    return fmt::format(
        "not all {} processes joined within {} s; check that every rank was started, that "
        "MASTER_ADDR={} is reachable from every machine and MASTER_PORT={} is open",
        o.world_size, o.timeout.count() / 1000.0, o.address, o.port);
  }
  return fmt::format("check MASTER_ADDR={} and MASTER_PORT={}", o.address, o.port);
}

#if TORCH_VERSION_MAJOR >= 2
// LibTorch 2.x: ProcessGroupGloo is a c10d::Backend, and a c10d::ProcessGroup routes each device
// type's collectives to its backend; Gloo serves both CPU and CUDA tensors here. The group's
// constructor lost its Options argument in 2.6 and gained setDefaultBackend: a template, so
// that only the branch this LibTorch has is compiled.
template <typename Group = c10d::ProcessGroup>
c10::intrusive_ptr<c10d::ProcessGroup> group_over(const c10::intrusive_ptr<c10d::Store>& store,
                                                  const ProcessGroupOptions& o,
                                                  const c10::intrusive_ptr<c10d::Backend>& gloo) {
  c10::intrusive_ptr<Group> group;
  if constexpr (requires { typename Group::Options; }) {
    group = c10::make_intrusive<Group>(
        store, o.rank, o.world_size,
        c10::make_intrusive<typename Group::Options>(std::string("gloo"), o.timeout));
  } else {
    group = c10::make_intrusive<Group>(store, o.rank, o.world_size);
  }
  if constexpr (requires(Group& g) { g.setDefaultBackend(Group::BackendType::GLOO); }) {
    group->setDefaultBackend(Group::BackendType::GLOO);
  }
  group->setBackend(c10::DeviceType::CPU, Group::BackendType::GLOO, gloo);
  group->setBackend(c10::DeviceType::CUDA, Group::BackendType::GLOO, gloo);
  return group;
}
#endif

}  // namespace

ProcessGroup::ProcessGroup(const ProcessGroupOptions& options) : options_(options) {
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<uint16_t>(options.port);
    store_options.isServer = options.rank == 0;
    store_options.numWorkers = options.world_size;
    store_options.waitWorkers = true;
    store_options.timeout = options.timeout;
    auto store = c10::make_intrusive<c10d::TCPStore>(options.address, store_options);

    auto gloo_options = c10d::ProcessGroupGloo::Options::create(options.timeout);
    gloo_options->devices.push_back(
        c10d::ProcessGroupGloo::createDeviceForHostname(options.address));
    auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, options.rank,
                                                            options.world_size, gloo_options);
#if TORCH_VERSION_MAJOR >= 2
    group_ = group_over(store, options, gloo);
#else
    group_ = gloo;  // LibTorch 1.13: the backend is the group
#endif
  } catch (const std::exception& e) {
    throw DistributedError(fmt::format(
        "rank {} of {} could not join the process group at {}:{}: {}; {}", options.rank,
        options.world_size, options.address, options.port, e.what(),
        rendezvous_advice(e.what(), options)));
  }
}

ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::fail(const std::string& operation, const std::exception& error) const {
  throw DistributedError(fmt::format(
      "rank {} of {}: {} failed: {} (another rank has probably failed or stopped)", rank(),
      world_size(), operation, error.what()));
}

void ProcessGroup::all_reduce(at::Tensor& tensor, CollectiveOp op) {
  try {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = to_c10d(op);
    group_->allreduce(tensors, options)->wait();
  } catch (const std::exception& e) {
    fail("all_reduce", e);
  }
}

std::vector<at::Tensor> ProcessGroup::all_gather(const at::Tensor& tensor) {
  try {
    std::vector<at::Tensor> input{tensor.contiguous()};
    std::vector<std::vector<at::Tensor>> output(1);
    for (int i = 0; i < world_size(); ++i) output[0].push_back(at::empty_like(input[0]));
    group_->allgather(output, input)->wait();
    return output[0];
  } catch (const std::exception& e) {
    fail("all_gather", e);
  }
}

void ProcessGroup::broadcast(at::Tensor& tensor, int src) {
  try {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = src;
    group_->broadcast(tensors, options)->wait();
  } catch (const std::exception& e) {
    fail("broadcast", e);
  }
}

void ProcessGroup::barrier() {
  try {
    group_->barrier()->wait();
  } catch (const std::exception& e) {
    fail("barrier", e);
  }
}

}  // namespace fulgur::compat
