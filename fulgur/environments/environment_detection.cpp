#include "fulgur/environments/environment_detection.h"

#include "fulgur/environments/lightning_environment.h"
#include "fulgur/environments/mpi_environment.h"
#include "fulgur/environments/slurm_environment.h"
#include "fulgur/environments/torch_elastic_environment.h"

namespace fulgur {

std::shared_ptr<ClusterEnvironment> detect_cluster_environment() {
  if (SLURMEnvironment::detect()) return std::make_shared<SLURMEnvironment>();
  if (TorchElasticEnvironment::detect()) return std::make_shared<TorchElasticEnvironment>();
  if (MPIEnvironment::detect()) return std::make_shared<MPIEnvironment>();
  return std::make_shared<LightningEnvironment>();
}

}  // namespace fulgur
