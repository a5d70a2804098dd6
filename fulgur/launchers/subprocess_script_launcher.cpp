#include "fulgur/launchers/subprocess_script_launcher.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "fulgur/environments/cluster_environment.h"
#include "fulgur/errors.h"
#include "fulgur/launchers/child_supervisor.h"

extern char** environ;

namespace fulgur {
namespace {

// How long a failed rank 0 waits to learn whether another rank failed first.
constexpr std::chrono::milliseconds kPeerFailureWait{3000};

// This program's arguments as it was started, argv[0] included.
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  for (size_t start = 0; start < raw.size();) {
    const size_t end = raw.find('\0', start);
    argv.push_back(raw.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (argv.empty()) {
    throw DistributedError("cannot start the other ranks: /proc/self/cmdline is unreadable");
  }
  return argv;
}

void set_variable(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }

}  // namespace

SubprocessScriptLauncher::SubprocessScriptLauncher(std::shared_ptr<ClusterEnvironment> environment,
                                                   int num_processes, int num_nodes)
    : environment_(std::move(environment)), num_processes_(num_processes), num_nodes_(num_nodes) {}

void SubprocessScriptLauncher::start_children() {
  if (std::getenv("LOCAL_RANK") != nullptr) {
    // As Lightning: only an unlaunched process starts ranks.
    throw DistributedError(fmt::format(
        "fulgur's launcher was asked to start ranks from a process that already has "
        "LOCAL_RANK={}; unset LOCAL_RANK, or give the Trainer a cluster environment whose "
        "creates_processes_externally() is true",
        std::getenv("LOCAL_RANK")));
  }
  const auto argv = own_command_line();
  const int node_rank = environment_->node_rank();
  // Every rank, this one included, sees the same rendezvous.
  set_variable("MASTER_ADDR", environment_->main_address());
  set_variable("MASTER_PORT", std::to_string(environment_->main_port()));
  set_variable("NODE_RANK", std::to_string(node_rank));
  set_variable("WORLD_SIZE", std::to_string(num_processes_ * num_nodes_));
  std::vector<std::string> base_env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("LOCAL_RANK=") || entry.starts_with("RANK=")) continue;
    base_env.emplace_back(entry);
  }
  auto& supervisor = ChildSupervisor::instance();
  for (int local = 1; local < num_processes_; ++local) {
    const int rank = node_rank * num_processes_ + local;
    auto env = base_env;
    env.push_back(fmt::format("LOCAL_RANK={}", local));
    env.push_back(fmt::format("RANK={}", rank));
    // The running binary itself: a relative or PATH-found argv[0] need not resolve, and the file
    // may have been rebuilt since this process started.
    supervisor.start(rank, "/proc/self/exe", argv, std::move(env));
  }
  set_variable("LOCAL_RANK", "0");
  set_variable("RANK", std::to_string(node_rank * num_processes_));
}

void SubprocessScriptLauncher::launch(const std::function<void()>& function) {
  auto& supervisor = ChildSupervisor::instance();
  if (!supervisor.has_children()) start_children();
  std::optional<JobFailure> failure;
  try {
    function();
    failure = supervisor.failure();
  } catch (const Interrupted&) {
    // A stop on SIGTERM/SIGUSR1: every rank stopped at the same batch after the checkpoint and
    // is ending too.
    supervisor.mark_reported();
    supervisor.stop_all(kPeerFailureWait);
    throw;
  } catch (const std::exception& error) {
    // A dead rank shows up here first as a failed collective (a DistributedError, or a LibTorch
    // error out of backward); the supervisor notices its exit a moment later and knows which
    // rank it was and why. fulgur's other errors are about this process's own flags, data or
    // checkpoints.
    const bool own = dynamic_cast<const Error*>(&error) != nullptr &&
                     dynamic_cast<const DistributedError*>(&error) == nullptr;
    failure = supervisor.failure(own ? std::chrono::milliseconds(0) : kPeerFailureWait);
    supervisor.stop_all();
    supervisor.mark_reported();
    if (!failure) {
      std::cerr << fmt::format("fulgur: rank {} failed; stopped the other ranks\n",
                               environment_->global_rank());
      throw;
    }
  }
  if (!failure) return;
  supervisor.stop_all();
  supervisor.mark_reported();
  const int ranks = num_processes_ * num_nodes_;
  if (failure->interrupted) {
    throw Interrupted(fmt::format("{}: stopped all {} ranks", failure->what, ranks), SIGINT, "");
  }
  throw DistributedError(fmt::format("{}; the other ranks were stopped", failure->what));
}

void SubprocessScriptLauncher::kill() { ChildSupervisor::instance().stop_all(); }

}  // namespace fulgur
