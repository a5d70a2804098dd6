#include "fulgur/launchers/child_supervisor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "fulgur/errors.h"
#include "fulgur/launchers/error_file.h"

namespace fulgur {
namespace {

// Ctrl-C: the handler records it and wakes the watcher, which stops the children. A second
// Ctrl-C ends this process at once. The handler runs on whichever thread the signal lands on,
// so both values are lock-free atomics (a volatile sig_atomic_t only orders the handler with
// its own thread: ThreadSanitizer reported the watcher's read racing with the handler's write).
std::atomic<bool> interrupted{false};
std::atomic<int> wake_fd{-1};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

extern "C" void on_interrupt(int) {
  if (interrupted.exchange(true)) ::_exit(130);
  const char byte = 1;
  [[maybe_unused]] auto written = ::write(wake_fd.load(), &byte, 1);
}

std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return abbreviation ? fmt::format("SIG{}", abbreviation) : fmt::format("signal {}", signal);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

ChildSupervisor& ChildSupervisor::instance() {
  static ChildSupervisor supervisor;
  return supervisor;
}

void ChildSupervisor::ensure_watching() {
  if (watcher_.joinable()) return;
  std::string pattern =
      (std::filesystem::temp_directory_path() / "fulgur-ranks-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw DistributedError(fmt::format("cannot create a folder for the ranks' errors ({}): {}",
                                       pattern, std::strerror(errno)));
  }
  error_dir_ = pattern;
  if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw DistributedError(
        fmt::format("cannot start watching the ranks: pipe2 failed: {}", std::strerror(errno)));
  }
  wake_fd = wake_pipe_[1];
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  watcher_ = std::thread([this] { watch(); });
}

void ChildSupervisor::start(int rank, const std::string& program,
                            const std::vector<std::string>& argv, std::vector<std::string> env) {
  std::lock_guard lock(mutex_);
  ensure_watching();
  Child child{.rank = rank, .pid = -1, .error_file = fmt::format("{}/rank{}.error", error_dir_, rank)};
  env.push_back(fmt::format("{}={}", error_file::kVariable, child.error_file));
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> arguments = argv;
  auto c_argv = c_strings(arguments);
  auto c_env = c_strings(env);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw DistributedError(fmt::format("cannot start rank {}: fork failed: {}", rank,
                                       std::strerror(errno)));
  }
  if (pid == 0) {
    // Dies with the parent, even if the parent is killed with SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::execve(program.c_str(), c_argv.data(), c_env.data());
    const char message[] = "fulgur: the launcher could not run this program again (execve failed)\n";
    [[maybe_unused]] auto written = ::write(2, message, sizeof(message) - 1);
    ::_exit(127);
  }
  child.pid = pid;
  children_.push_back(std::move(child));
}

bool ChildSupervisor::has_children() const {
  std::lock_guard lock(mutex_);
  return !children_.empty();
}

std::optional<JobFailure> ChildSupervisor::failure(std::chrono::milliseconds wait) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, wait, [&] { return failure_.has_value(); });
  return failure_;
}

void ChildSupervisor::stop_all(std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, grace, [&] {
    return std::none_of(children_.begin(), children_.end(), [](const Child& c) { return c.running; });
  });
  kill_running_locked();
  for (auto& child : children_) {
    if (!child.running) continue;
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    child.running = false;
  }
  changed_.notify_all();
}

void ChildSupervisor::mark_reported() {
  std::lock_guard lock(mutex_);
  reported_ = true;
}

void ChildSupervisor::watch() {
  for (;;) {
    pollfd wake{.fd = wake_pipe_[0], .events = POLLIN, .revents = 0};
    ::poll(&wake, 1, 50);
    char drain[64];
    while (::read(wake_pipe_[0], drain, sizeof(drain)) > 0) {
    }
    std::unique_lock lock(mutex_);
    if (interrupted) fail_locked({.what = "received SIGINT (Ctrl-C)", .interrupted = true});
    reap_locked();
    const bool any_running =
        std::any_of(children_.begin(), children_.end(), [](const Child& c) { return c.running; });
    if (exiting_ && !any_running) return;
    if (failure_ && !reported_ && !exiting_ &&
        std::chrono::steady_clock::now() - failed_at_ > kStopGrace) {
      end_process(failure_->what);
    }
  }
}

void ChildSupervisor::reap_locked() {
  for (auto& child : children_) {
    if (!child.running) continue;
    int status = 0;
    const pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == 0 || (done < 0 && errno == EINTR)) continue;
    child.running = false;
    changed_.notify_all();
    if (done < 0) continue;  // reaped elsewhere: its status is unknown
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    fail_locked({.what = describe_exit(child, status),
                 .interrupted = WIFSIGNALED(status) && WTERMSIG(status) == SIGINT});
  }
}

void ChildSupervisor::fail_locked(JobFailure failure) {
  if (failure_) return;
  failure_ = std::move(failure);
  failed_at_ = std::chrono::steady_clock::now();
  kill_running_locked();
  changed_.notify_all();
}

void ChildSupervisor::kill_running_locked() {
  for (const auto& child : children_) {
    if (child.running) ::kill(child.pid, SIGKILL);
  }
}

std::string ChildSupervisor::describe_exit(const Child& child, int status) const {
  std::string what =
      WIFSIGNALED(status)
          ? fmt::format("rank {} (pid {}) was killed by {}", child.rank, child.pid,
                        signal_name(WTERMSIG(status)))
          : fmt::format("rank {} (pid {}) exited with code {}", child.rank, child.pid,
                        WEXITSTATUS(status));
  const std::string error = error_file::read(child.error_file);
  return error.empty() ? what : fmt::format("{}: {}", what, error);
}

void ChildSupervisor::end_process(const std::string& why) const {
  std::cerr << fmt::format("fulgur: {}; stopped the other ranks\n", why) << std::flush;
  ::_exit(failure_ && failure_->interrupted ? 130 : 1);
}

ChildSupervisor::~ChildSupervisor() {
  if (!watcher_.joinable()) return;
  {
    std::unique_lock lock(mutex_);
    exiting_ = true;
    const bool all_ended = changed_.wait_for(lock, kExitWait, [&] {
      return std::none_of(children_.begin(), children_.end(),
                          [](const Child& c) { return c.running; });
    });
    if (!all_ended) {
      for (const auto& child : children_) {
        if (!child.running) continue;
        fail_locked({.what = fmt::format("rank {} (pid {}) was still running {} s after rank 0 "
                                         "finished",
                                         child.rank, child.pid, kExitWait.count())});
        break;
      }
    }
  }
  stop_all();
  const char byte = 1;
  [[maybe_unused]] auto written = ::write(wake_pipe_[1], &byte, 1);
  watcher_.join();
  std::error_code ignored;
  std::filesystem::remove_all(error_dir_, ignored);
  if (failure_ && !reported_) end_process(failure_->what);
}

}  // namespace fulgur
