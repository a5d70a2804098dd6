// torchrun, SLURM and Open MPI environments: detection from their variables, the ranks and
// addresses read from them, and the checks that the Trainer's devices × num_nodes match what the
// launcher started.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/environments/environment_detection.h"
#include "fulgur/environments/mpi_environment.h"
#include "fulgur/environments/slurm_environment.h"
#include "fulgur/environments/torch_elastic_environment.h"
#include "fulgur/errors.h"
#include "fulgur/strategies/strategy.h"
#include "scoped_env.h"

namespace fulgur {
namespace {

using Vars = std::map<std::string, std::optional<std::string>>;

// Every variable any environment reads, unset, overlaid with `values`.
Vars only(const Vars& values) {
  Vars all;
  for (const char* name :
       {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "NODE_RANK", "GROUP_RANK",
        "LOCAL_WORLD_SIZE", "SLURM_NTASKS", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID",
        "SLURM_NODELIST", "SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_NTASKS_PER_NODE",
        "SLURM_NNODES", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}) {
    all[name] = std::nullopt;
  }
  for (const auto& [name, value] : values) all[name] = value;
  return all;
}

const Vars kTorchrun = {{"RANK", "3"},        {"GROUP_RANK", "1"},  {"LOCAL_RANK", "1"},
                        {"LOCAL_WORLD_SIZE", "2"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "10.1.2.3"},
                        {"MASTER_PORT", "29500"}};
const Vars kSlurm = {{"SLURM_NTASKS", "4"},       {"SLURM_PROCID", "2"},
                     {"SLURM_LOCALID", "0"},      {"SLURM_NODEID", "1"},
                     {"SLURM_NODELIST", "gpu[07-08]"}, {"SLURM_JOB_ID", "8123456"},
                     {"SLURM_JOB_NAME", "train"}, {"SLURM_NTASKS_PER_NODE", "2"},
                     {"SLURM_NNODES", "2"}};
const Vars kMpi = {{"OMPI_COMM_WORLD_SIZE", "4"},
                   {"OMPI_COMM_WORLD_RANK", "3"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                   {"MASTER_ADDR", "node0"}};

Vars merged(Vars a, const Vars& b) {
  for (const auto& [name, value] : b) a[name] = value;
  return a;
}

std::string validation_error(const ClusterEnvironment& environment, int devices, int nodes) {
  try {
    environment.validate_settings(devices, nodes);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TorchElasticEnvironment, ReadsTorchrunsVariables) {
  testing::ScopedEnv env(only(kTorchrun));
  ASSERT_TRUE(TorchElasticEnvironment::detect());
  TorchElasticEnvironment e;
  EXPECT_EQ(e.name(), "TorchElasticEnvironment");
  EXPECT_TRUE(e.creates_processes_externally());
  EXPECT_EQ(e.world_size(), 4);
  EXPECT_EQ(e.global_rank(), 3);
  EXPECT_EQ(e.local_rank(), 1);
  EXPECT_EQ(e.node_rank(), 1);
  EXPECT_EQ(e.main_address(), "10.1.2.3");
  EXPECT_EQ(e.main_port(), 29500);
  e.set_world_size(8);  // torchrun's word is final, as in Lightning
  e.set_global_rank(0);
  EXPECT_EQ(e.world_size(), 4);
  EXPECT_EQ(e.global_rank(), 3);
  EXPECT_EQ(validation_error(e, 2, 2), "");
  EXPECT_EQ(validation_error(e, 1, 2),
            "devices × num_nodes = 1 × 2 = 2, but torchrun started WORLD_SIZE=4 processes; set "
            "devices to torchrun's --nproc-per-node and num_nodes to its --nnodes");
}

TEST(TorchElasticEnvironment, NeedsAllFourOfTorchrunsMarkersAndDefaultsTheAddress) {
  {
    testing::ScopedEnv env(only({{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"}}));
    EXPECT_FALSE(TorchElasticEnvironment::detect());  // no GROUP_RANK
  }
  testing::ScopedEnv env(only(
      {{"RANK", "0"}, {"GROUP_RANK", "0"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"}}));
  ASSERT_TRUE(TorchElasticEnvironment::detect());
  TorchElasticEnvironment e;
  EXPECT_EQ(e.main_address(), "127.0.0.1");
  EXPECT_EQ(e.main_port(), 12910);
  try {
    (void)e.world_size();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "environment variable WORLD_SIZE is not set, but the other variables say that "
              "torchrun started this process; start it through torchrun or unset them");
  }
}

TEST(SLURMEnvironment, ResolvesTheFirstNodeOfTheNodeList) {
  EXPECT_EQ(SLURMEnvironment::resolve_root_node_address("node[1-3,5],gpu7"), "node1");
  EXPECT_EQ(SLURMEnvironment::resolve_root_node_address("gpu[07-08]"), "gpu07");
  EXPECT_EQ(SLURMEnvironment::resolve_root_node_address("host[5]"), "host5");
  EXPECT_EQ(SLURMEnvironment::resolve_root_node_address("alpha,beta"), "alpha");
  EXPECT_EQ(SLURMEnvironment::resolve_root_node_address("solo"), "solo");
}

TEST(SLURMEnvironment, ReadsSrunsVariables) {
  testing::ScopedEnv env(only(kSlurm));
  ASSERT_TRUE(SLURMEnvironment::detect());
  SLURMEnvironment e;
  EXPECT_EQ(e.world_size(), 4);
  EXPECT_EQ(e.global_rank(), 2);
  EXPECT_EQ(e.local_rank(), 0);
  EXPECT_EQ(e.node_rank(), 1);
  EXPECT_EQ(e.main_address(), "gpu07");
  EXPECT_EQ(e.main_port(), 3456 + 15000);  // the job id's last four digits
  EXPECT_EQ(validation_error(e, 2, 2), "");
  EXPECT_EQ(validation_error(e, 4, 2),
            "devices=4 does not match SLURM's --ntasks-per-node=2; set devices=2");
  EXPECT_EQ(validation_error(e, 2, 1),
            "num_nodes=1 does not match SLURM's --nodes=2; set num_nodes=2");
}

TEST(SLURMEnvironment, MasterVariablesWinAndInteractiveJobsAreNotLaunches) {
  {
    testing::ScopedEnv env(
        only(merged(kSlurm, {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "1234"}})));
    SLURMEnvironment e;
    EXPECT_EQ(e.main_address(), "10.0.0.1");
    EXPECT_EQ(e.main_port(), 1234);
  }
  for (const char* name : {"bash", "interactive"}) {
    testing::ScopedEnv env(only(merged(kSlurm, {{"SLURM_JOB_NAME", name}})));
    EXPECT_FALSE(SLURMEnvironment::detect()) << name;
  }
  testing::ScopedEnv env(only({{"SLURM_NTASKS", "3"},
                               {"SLURM_PROCID", "0"},
                               {"SLURM_LOCALID", "0"},
                               {"SLURM_NODEID", "0"}}));
  SLURMEnvironment e;
  EXPECT_EQ(e.main_address(), "127.0.0.1");
  EXPECT_EQ(e.main_port(), 12910);
  EXPECT_EQ(validation_error(e, 2, 1),
            "devices × num_nodes = 2 × 1 = 2, but SLURM started SLURM_NTASKS=3 tasks; use "
            "--ntasks-per-node=2 with --nodes=1");
}

TEST(MPIEnvironment, ReadsOpenMpisVariables) {
  testing::ScopedEnv env(only(kMpi));
  ASSERT_TRUE(MPIEnvironment::detect());
  MPIEnvironment e;
  EXPECT_EQ(e.world_size(), 4);
  EXPECT_EQ(e.global_rank(), 3);
  EXPECT_EQ(e.local_rank(), 1);
  EXPECT_EQ(e.node_rank(), 1);  // ranks 2 and 3 fill the second machine
  EXPECT_EQ(e.main_address(), "node0");
  EXPECT_EQ(e.main_port(), 12910);
  EXPECT_EQ(validation_error(e, 2, 2), "");
  EXPECT_EQ(validation_error(e, 2, 1),
            "devices × num_nodes = 2 × 1 = 2, but mpirun started OMPI_COMM_WORLD_SIZE=4 "
            "processes; run mpirun with -np 2 and 2 per machine");
}

TEST(MPIEnvironment, SeveralMachinesNeedMasterAddr) {
  Vars vars = kMpi;
  vars["MASTER_ADDR"] = std::nullopt;
  testing::ScopedEnv env(only(vars));
  EXPECT_THROW(
      {
        try {
          (void)MPIEnvironment().main_address();
        } catch (const ConfigError& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("pass -x MASTER_ADDR="));
          throw;
        }
      },
      ConfigError);
  vars["OMPI_COMM_WORLD_LOCAL_SIZE"] = "4";  // one machine: loopback
  testing::ScopedEnv one_machine(only(vars));
  EXPECT_EQ(MPIEnvironment().main_address(), "127.0.0.1");
}

TEST(DetectClusterEnvironment, FollowsLightningsOrder) {
  {
    testing::ScopedEnv env(only({}));
    EXPECT_EQ(detect_cluster_environment()->name(), "LightningEnvironment");
  }
  {
    testing::ScopedEnv env(only(kMpi));
    EXPECT_EQ(detect_cluster_environment()->name(), "MPIEnvironment");
  }
  {
    testing::ScopedEnv env(only(merged(kMpi, kTorchrun)));
    EXPECT_EQ(detect_cluster_environment()->name(), "TorchElasticEnvironment");
  }
  testing::ScopedEnv env(only(merged(kTorchrun, kSlurm)));
  EXPECT_EQ(detect_cluster_environment()->name(), "SLURMEnvironment");
}

TEST(DetectClusterEnvironment, TheConnectorUsesItAndChecksTheWorldSize) {
  {
    testing::ScopedEnv env(only(merged(kTorchrun, {{"WORLD_SIZE", "1"}, {"RANK", "0"}})));
    AcceleratorConnector c({.accelerator = "cpu", .devices = 1});
    EXPECT_EQ(c.strategy()->cluster_environment()->name(), "TorchElasticEnvironment");
  }
  testing::ScopedEnv env(only(kTorchrun));
  try {
    AcceleratorConnector c({.accelerator = "cpu", .devices = 1});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "devices × num_nodes = 1 × 1 = 1, but torchrun started WORLD_SIZE=4 processes; set "
              "devices to torchrun's --nproc-per-node and num_nodes to its --nnodes");
  }
}

}  // namespace
}  // namespace fulgur
