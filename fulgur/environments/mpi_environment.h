#pragma once
// MPIEnvironment (Lightning's name): processes started by Open MPI's mpirun, read from its
// OMPI_COMM_WORLD_* variables (no MPI library is linked). The node rank assumes mpirun's default
// by-slot placement (consecutive ranks fill a node). The main address is MASTER_ADDR, which a
// multi-node job must set; the port MASTER_PORT, else 12910.
#include "fulgur/environments/cluster_environment.h"

namespace fulgur {

class MPIEnvironment : public ClusterEnvironment {
 public:
  static bool detect();  // OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_RANK are set

  std::string name() const override { return "MPIEnvironment"; }
  bool creates_processes_externally() const override { return true; }
  std::string main_address() const override;
  int main_port() const override;
  int world_size() const override;
  void set_world_size(int) override {}
  int global_rank() const override;
  void set_global_rank(int) override {}
  int local_rank() const override;
  int node_rank() const override;
  void validate_settings(int num_devices, int num_nodes) const override;
};

}  // namespace fulgur
