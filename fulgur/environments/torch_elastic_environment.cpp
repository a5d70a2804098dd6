#include "fulgur/environments/torch_elastic_environment.h"

#include <fmt/format.h>

#include "fulgur/environments/environment_variables.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {
constexpr const char* kTorchrun = "torchrun";
}  // namespace

bool TorchElasticEnvironment::detect() {
  return env::get("RANK") && env::get("GROUP_RANK") && env::get("LOCAL_RANK") &&
         env::get("LOCAL_WORLD_SIZE");
}

std::string TorchElasticEnvironment::main_address() const {
  return env::get("MASTER_ADDR").value_or("127.0.0.1");
}

int TorchElasticEnvironment::main_port() const { return env::get_int("MASTER_PORT", 12910, 1); }

int TorchElasticEnvironment::world_size() const {
  return env::require_int("WORLD_SIZE", 1, kTorchrun);
}

int TorchElasticEnvironment::global_rank() const { return env::require_int("RANK", 0, kTorchrun); }

int TorchElasticEnvironment::local_rank() const {
  return env::require_int("LOCAL_RANK", 0, kTorchrun);
}

int TorchElasticEnvironment::node_rank() const { return env::get_int("GROUP_RANK", 0, 0); }

void TorchElasticEnvironment::validate_settings(int num_devices, int num_nodes) const {
  if (num_devices * num_nodes != world_size()) {
    throw ConfigError(fmt::format(
        "devices × num_nodes = {} × {} = {}, but torchrun started WORLD_SIZE={} processes; set "
        "devices to torchrun's --nproc-per-node and num_nodes to its --nnodes",
        num_devices, num_nodes, num_devices * num_nodes, world_size()));
  }
}

}  // namespace fulgur
