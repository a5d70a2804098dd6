#include "fulgur/environments/lightning_environment.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fulgur/environments/environment_variables.h"
#include "fulgur/errors.h"

namespace fulgur {

LightningEnvironment::LightningEnvironment()
    : world_size_(env::get_int("WORLD_SIZE", 1, 1)), global_rank_(env::get_int("RANK", 0, 0)) {}

bool LightningEnvironment::creates_processes_externally() const {
  // LOCAL_RANK is set by whoever started this process as one of several: fulgur's own launcher
  // (then this is a child) or an external one.
  return env::get("LOCAL_RANK").has_value();
}

std::string LightningEnvironment::main_address() const {
  return env::get("MASTER_ADDR").value_or("127.0.0.1");
}

int LightningEnvironment::main_port() const {
  if (port_ == -1) {
    port_ = env::get("MASTER_PORT") ? env::get_int("MASTER_PORT", 0, 1) : find_free_port();
    if (port_ > 65535) {
      int bad = port_;
      port_ = -1;
      throw ConfigError(
          fmt::format("environment variable MASTER_PORT=\"{}\" is not a TCP port; "
                      "use 1..65535 or leave it unset for a free one",
                      bad));
    }
  }
  return port_;
}

int LightningEnvironment::local_rank() const { return env::get_int("LOCAL_RANK", 0, 0); }

int LightningEnvironment::node_rank() const {
  if (env::get("NODE_RANK")) return env::get_int("NODE_RANK", 0, 0);
  return env::get_int("GROUP_RANK", 0, 0);
}

void LightningEnvironment::validate_settings(int num_devices, int num_nodes) const {
  if (!creates_processes_externally() || !env::get("WORLD_SIZE")) return;
  if (num_devices * num_nodes != world_size_) {
    throw ConfigError(fmt::format(
        "devices × num_nodes = {} × {} = {}, but this process was started as one of "
        "WORLD_SIZE={} processes; launch devices × num_nodes processes or change the flags",
        num_devices, num_nodes, num_devices * num_nodes, world_size_));
  }
}

int LightningEnvironment::find_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw DistributedError(
        fmt::format("cannot find a free TCP port: socket() failed ({}); set "
                    "MASTER_PORT",
                    std::strerror(errno)));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;  // the kernel picks a free one
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int err = errno;
    ::close(fd);
    throw DistributedError(
        fmt::format("cannot find a free TCP port on 127.0.0.1 ({}); set "
                    "MASTER_PORT",
                    std::strerror(err)));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace fulgur
