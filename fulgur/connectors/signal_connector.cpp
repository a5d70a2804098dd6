#include "fulgur/connectors/signal_connector.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "fulgur/trainer.h"

namespace fulgur {
namespace {

// A handler may only touch a lock-free atomic or a volatile sig_atomic_t.
volatile std::sig_atomic_t received_signal = 0;

extern "C" void record_signal(int signal) { received_signal = signal; }

}  // namespace

void SignalConnector::register_handlers() {
  restore_handlers();
  received_signal = 0;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // Interrupted system calls (a blocking read in a loader) restart instead of failing.
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGTERM, &action, &previous_term_);
  ::sigaction(SIGUSR1, &action, &previous_usr1_);
  registered_ = true;
}

void SignalConnector::restore_handlers() {
  if (!registered_) return;
  ::sigaction(SIGTERM, &previous_term_, nullptr);
  ::sigaction(SIGUSR1, &previous_usr1_, nullptr);
  registered_ = false;
}

int SignalConnector::received() const { return registered_ ? received_signal : 0; }

std::string SignalConnector::hpc_save_path(const std::string& dir) {
  namespace fs = std::filesystem;
  static const std::regex numbered(std::string(Trainer::kHpcCheckpointPrefix) + R"(([0-9]+)\.ckpt)");
  int64_t largest = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, numbered)) largest = std::max<int64_t>(largest, std::stoll(m[1]));
  }
  return (fs::path(dir) / fmt::format("{}{}.ckpt", Trainer::kHpcCheckpointPrefix, largest + 1))
      .string();
}

std::string SignalConnector::signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return fmt::format("signal {}", signal);
  }
}

}  // namespace fulgur
