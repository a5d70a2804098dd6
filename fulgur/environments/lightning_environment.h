#pragma once
// The default environment (Lightning's LightningEnvironment): a single machine where fulgur
// starts the processes itself, or where LOCAL_RANK etc. were set by fulgur's own launcher.
// Reads MASTER_ADDR (default 127.0.0.1), MASTER_PORT (default: a free port, chosen once),
// WORLD_SIZE, NODE_RANK, LOCAL_RANK, and RANK when set.
#include "fulgur/environments/cluster_environment.h"

namespace fulgur {

class LightningEnvironment : public ClusterEnvironment {
 public:
  LightningEnvironment();
  std::string name() const override { return "LightningEnvironment"; }
  bool creates_processes_externally() const override;
  std::string main_address() const override;
  int main_port() const override;
  int world_size() const override { return world_size_; }
  void set_world_size(int size) override { world_size_ = size; }
  int global_rank() const override { return global_rank_; }
  void set_global_rank(int rank) override { global_rank_ = rank; }
  int local_rank() const override;
  int node_rank() const override;
  // A launched process (LOCAL_RANK set) must belong to a world of devices × num_nodes.
  void validate_settings(int num_devices, int num_nodes) const override;

  // A TCP port on 127.0.0.1 that nothing listens on right now.
  static int find_free_port();

 private:
  int world_size_ = 1;
  int global_rank_ = 0;
  mutable int port_ = -1;
};

}  // namespace fulgur
