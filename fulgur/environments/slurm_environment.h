#pragma once
// SLURMEnvironment (Lightning's name): processes started by srun. Ranks come from SLURM_PROCID,
// SLURM_LOCALID and SLURM_NODEID, the world size from SLURM_NTASKS; the main address is
// MASTER_ADDR or the first host of SLURM_NODELIST, the port MASTER_PORT or 15000 + the last four
// digits of SLURM_JOB_ID. An interactive allocation (job name "bash" or "interactive") is not
// treated as a SLURM launch, as in Lightning.
#include <string>

#include "fulgur/environments/cluster_environment.h"

namespace fulgur {

class SLURMEnvironment : public ClusterEnvironment {
 public:
  static bool detect();
  // "node[1-3,5],gpu7" → "node1" (Lightning's resolve_root_node_address).
  static std::string resolve_root_node_address(const std::string& nodes);

  std::string name() const override { return "SLURMEnvironment"; }
  bool creates_processes_externally() const override { return true; }
  std::string main_address() const override;
  int main_port() const override;
  int world_size() const override;
  void set_world_size(int) override {}
  int global_rank() const override;
  void set_global_rank(int) override {}
  int local_rank() const override;
  int node_rank() const override;
  // devices must equal --ntasks-per-node and num_nodes --nodes, where SLURM says them.
  void validate_settings(int num_devices, int num_nodes) const override;
};

}  // namespace fulgur
