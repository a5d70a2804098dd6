#pragma once
// Which ClusterEnvironment describes this process, read from the environment in Lightning's
// order: SLURM, torchrun (TorchElastic), Open MPI, else fulgur's own (LightningEnvironment).
#include <memory>

#include "fulgur/environments/cluster_environment.h"

namespace fulgur {

std::shared_ptr<ClusterEnvironment> detect_cluster_environment();

}  // namespace fulgur
