#pragma once
// ClusterEnvironment: who this process is in the job (ranks, world size) and where the main
// process listens. Read from the environment a launcher or scheduler set up.
#include <string>

namespace fulgur {

class ClusterEnvironment {
 public:
  virtual ~ClusterEnvironment() = default;
  virtual std::string name() const = 0;
  // True when something else (torchrun, SLURM, mpirun) started every process.
  virtual bool creates_processes_externally() const = 0;
  virtual std::string main_address() const = 0;
  virtual int main_port() const = 0;
  virtual int world_size() const = 0;
  virtual void set_world_size(int size) = 0;
  virtual int global_rank() const = 0;
  virtual void set_global_rank(int rank) = 0;
  virtual int local_rank() const = 0;
  virtual int node_rank() const = 0;
  // Raises ConfigError when the Trainer's devices and num_nodes cannot describe the processes
  // this environment started (e.g. torchrun's WORLD_SIZE is not devices × num_nodes).
  virtual void validate_settings(int num_devices, int num_nodes) const {
    (void)num_devices;
    (void)num_nodes;
  }
};

}  // namespace fulgur
