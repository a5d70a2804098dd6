#pragma once
// SubprocessScriptLauncher (Lightning's _SubprocessScriptLauncher): this process becomes local
// rank 0 and runs the same program again, with the same arguments, as local ranks 1..N-1 of
// its node, telling each who it is through LOCAL_RANK, NODE_RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT. Every rank then runs the whole program; a later Trainer call in any of them
// finds the processes in place and starts nothing.
//
// Unlike Lightning, the job never hangs on a dead rank: the ChildSupervisor stops the others as
// soon as one fails, and `launch` raises a DistributedError that names the failed rank and its
// error. Ctrl-C stops every rank and raises Interrupted.
#include <memory>

#include "fulgur/launchers/launcher.h"

namespace fulgur {

class ClusterEnvironment;

class SubprocessScriptLauncher : public Launcher {
 public:
  // `num_processes` per node (the devices), on `num_nodes` nodes.
  SubprocessScriptLauncher(std::shared_ptr<ClusterEnvironment> environment, int num_processes,
                           int num_nodes);

  void launch(const std::function<void()>& function) override;
  void kill() override;

 private:
  void start_children();

  std::shared_ptr<ClusterEnvironment> environment_;
  int num_processes_;
  int num_nodes_;
};

}  // namespace fulgur
