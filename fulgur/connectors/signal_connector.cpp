#include "fulgur/connectors/signal_connector.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "fulgur/io/directory_listing.h"
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

namespace {

// The largest N of the hpc_ckpt_<N>.ckpt files in `dir`; 0 when there is none.
int64_t largest_hpc_number(const std::string& dir) {
  const std::string_view prefix = Trainer::kHpcCheckpointPrefix;
  constexpr std::string_view kSuffix = ".ckpt";
  int64_t largest = 0;
  for (const auto& entry : list_directory(dir)) {
    std::string_view name = entry.name;
    if (!entry.is_regular_file || name.size() < prefix.size() + kSuffix.size() ||
        !name.starts_with(prefix) || !name.ends_with(kSuffix)) {
      continue;
    }
    name = name.substr(prefix.size(), name.size() - prefix.size() - kSuffix.size());
    int64_t number = 0;
    if (parse_count(name, number)) largest = std::max(largest, number);
  }
  return largest;
}

std::string hpc_path(const std::string& dir, int64_t number) {
  return (std::filesystem::path(dir) /
          fmt::format("{}{}.ckpt", Trainer::kHpcCheckpointPrefix, number))
      .string();
}

}  // namespace

std::string SignalConnector::hpc_save_path(const std::string& dir) {
  return hpc_path(dir, largest_hpc_number(dir) + 1);
}

std::string SignalConnector::hpc_resume_path(const std::string& dir) {
  const int64_t largest = largest_hpc_number(dir);
  return largest == 0 ? std::string() : hpc_path(dir, largest);
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
