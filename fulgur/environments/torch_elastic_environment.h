#pragma once
// TorchElasticEnvironment (Lightning's name): processes started by torchrun / torch.distributed
// .elastic, which sets RANK, GROUP_RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, WORLD_SIZE, MASTER_ADDR
// and MASTER_PORT. Ranks and world size are torchrun's; setting them is ignored.
#include "fulgur/environments/cluster_environment.h"

namespace fulgur {

class TorchElasticEnvironment : public ClusterEnvironment {
 public:
  // True when torchrun's variables are set (Lightning: RANK, GROUP_RANK, LOCAL_RANK and
  // LOCAL_WORLD_SIZE).
  static bool detect();

  std::string name() const override { return "TorchElasticEnvironment"; }
  bool creates_processes_externally() const override { return true; }
  std::string main_address() const override;  // MASTER_ADDR, else 127.0.0.1
  int main_port() const override;              // MASTER_PORT, else 12910
  int world_size() const override;
  void set_world_size(int) override {}
  int global_rank() const override;
  void set_global_rank(int) override {}
  int local_rank() const override;
  int node_rank() const override;  // GROUP_RANK
  void validate_settings(int num_devices, int num_nodes) const override;
};

}  // namespace fulgur
