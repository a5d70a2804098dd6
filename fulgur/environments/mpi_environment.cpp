#include "fulgur/environments/mpi_environment.h"

#include <fmt/format.h>

#include "fulgur/environments/environment_variables.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {
constexpr const char* kMpi = "mpirun";
}  // namespace

bool MPIEnvironment::detect() {
  return env::get("OMPI_COMM_WORLD_SIZE") && env::get("OMPI_COMM_WORLD_RANK");
}

std::string MPIEnvironment::main_address() const {
  if (auto address = env::get("MASTER_ADDR")) return *address;
  const int local_size = env::get_int("OMPI_COMM_WORLD_LOCAL_SIZE", world_size(), 1);
  if (local_size < world_size()) {
    throw ConfigError(
        "mpirun started processes on several machines, but MASTER_ADDR is not set; pass "
        "-x MASTER_ADDR=<the address of rank 0's machine> to mpirun");
  }
  return "127.0.0.1";
}

int MPIEnvironment::main_port() const { return env::get_int("MASTER_PORT", 12910, 1); }

int MPIEnvironment::world_size() const {
  return env::require_int("OMPI_COMM_WORLD_SIZE", 1, kMpi);
}

int MPIEnvironment::global_rank() const {
  return env::require_int("OMPI_COMM_WORLD_RANK", 0, kMpi);
}

int MPIEnvironment::local_rank() const {
  return env::get_int("OMPI_COMM_WORLD_LOCAL_RANK", 0, 0);
}

int MPIEnvironment::node_rank() const {
  const int local_size = env::get_int("OMPI_COMM_WORLD_LOCAL_SIZE", world_size(), 1);
  return global_rank() / local_size;
}

void MPIEnvironment::validate_settings(int num_devices, int num_nodes) const {
  if (num_devices * num_nodes != world_size()) {
    throw ConfigError(fmt::format(
        "devices × num_nodes = {} × {} = {}, but mpirun started OMPI_COMM_WORLD_SIZE={} "
        "processes; run mpirun with -np {} and {} per machine",
        num_devices, num_nodes, num_devices * num_nodes, world_size(), num_devices * num_nodes,
        num_devices));
  }
}

}  // namespace fulgur
