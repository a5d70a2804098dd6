#include "fulgur/environments/slurm_environment.h"

#include <fmt/format.h>

#include <regex>

#include "fulgur/environments/environment_variables.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {
constexpr const char* kSlurm = "SLURM";
}  // namespace

bool SLURMEnvironment::detect() {
  const auto job_name = env::get("SLURM_JOB_NAME");
  const bool interactive = job_name && (*job_name == "bash" || *job_name == "interactive");
  return env::get("SLURM_NTASKS").has_value() && !interactive;
}

std::string SLURMEnvironment::resolve_root_node_address(const std::string& nodes) {
  // The first host of each range, then of a single-number range, then the first of the list.
  static const std::regex range(R"(\[(.*?)[,-].*\])");
  static const std::regex single(R"(\[(.*?)\])");
  std::string first = std::regex_replace(nodes, range, "$1");
  first = std::regex_replace(first, single, "$1");
  first = first.substr(0, first.find(' '));
  return first.substr(0, first.find(','));
}

std::string SLURMEnvironment::main_address() const {
  if (auto address = env::get("MASTER_ADDR")) return *address;
  const auto nodes = env::get("SLURM_NODELIST");
  return nodes ? resolve_root_node_address(*nodes) : "127.0.0.1";
}

int SLURMEnvironment::main_port() const {
  if (env::get("MASTER_PORT")) return env::get_int("MASTER_PORT", 0, 1);
  // Every task of the job computes the same port without talking to the others.
  const auto job_id = env::get("SLURM_JOB_ID");
  if (!job_id) return 12910;
  const std::string tail = job_id->size() > 4 ? job_id->substr(job_id->size() - 4) : *job_id;
  try {
    return std::stoi(tail) + 15000;
  } catch (const std::exception&) {
    return 12910;
  }
}

int SLURMEnvironment::world_size() const { return env::require_int("SLURM_NTASKS", 1, kSlurm); }
int SLURMEnvironment::global_rank() const { return env::require_int("SLURM_PROCID", 0, kSlurm); }
int SLURMEnvironment::local_rank() const { return env::require_int("SLURM_LOCALID", 0, kSlurm); }
int SLURMEnvironment::node_rank() const { return env::require_int("SLURM_NODEID", 0, kSlurm); }

void SLURMEnvironment::validate_settings(int num_devices, int num_nodes) const {
  if (env::get("SLURM_NTASKS_PER_NODE")) {
    // SLURM writes "2" or, for heterogeneous jobs, "2(x3)"; the leading count is what matters.
    const std::string text = *env::get("SLURM_NTASKS_PER_NODE");
    const int per_node = std::atoi(text.c_str());
    if (per_node != num_devices) {
      throw ConfigError(fmt::format(
          "devices={} does not match SLURM's --ntasks-per-node={}; set devices={}", num_devices,
          text, per_node));
    }
  }
  if (env::get("SLURM_NNODES")) {
    const int nodes = env::get_int("SLURM_NNODES", 1, 1);
    if (nodes != num_nodes) {
      throw ConfigError(fmt::format(
          "num_nodes={} does not match SLURM's --nodes={}; set num_nodes={}", num_nodes, nodes,
          nodes));
    }
  }
  if (num_devices * num_nodes != world_size()) {
    throw ConfigError(fmt::format(
        "devices × num_nodes = {} × {} = {}, but SLURM started SLURM_NTASKS={} tasks; use "
        "--ntasks-per-node={} with --nodes={}",
        num_devices, num_nodes, num_devices * num_nodes, world_size(), num_devices, num_nodes));
  }
}

}  // namespace fulgur
