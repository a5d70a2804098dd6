#pragma once
// ChildSupervisor: the ranks fulgur's launcher started from this process, watched for the rest
// of its life. The children run the whole program, as this process does, so they outlive any
// one Trainer: there is one supervisor per process.
//
// Guarantees:
// - a child dies with this process (PR_SET_PDEATHSIG), however this process ends;
// - when a child fails (non-zero exit or a signal), or Ctrl-C reaches this process, every
//   other child is killed at once and the reason is kept for the launcher to raise; if this
//   process has not surfaced it within kStopGrace (it may be blocked where no error reaches
//   it), the supervisor prints it and ends the process, so a dead rank never hangs the job;
// - at exit this process waits for its children (at most kExitWait, then kills them), so no
//   process is left behind.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fulgur {

// Why the job is going down.
struct JobFailure {
  std::string what;          // "rank 1 (pid 123) exited with code 1: <its error>"
  bool interrupted = false;  // Ctrl-C (SIGINT) reached this process
};

class ChildSupervisor {
 public:
  static constexpr std::chrono::seconds kStopGrace{10};
  static constexpr std::chrono::seconds kExitWait{30};

  static ChildSupervisor& instance();
  ChildSupervisor(const ChildSupervisor&) = delete;
  ChildSupervisor& operator=(const ChildSupervisor&) = delete;

  // Runs `program` with `argv` (argv[0] included) and exactly `env` as global rank `rank`.
  // FULGUR_ERROR_FILE is added to `env`, naming where the child leaves its error. Call it from a
  // thread that lives as long as the job (the main thread): Linux sends PR_SET_PDEATHSIG when
  // the thread that forked ends, not only the process.
  void start(int rank, const std::string& program, const std::vector<std::string>& argv,
             std::vector<std::string> env);
  bool has_children() const;
  // The reason the job is failing, waiting up to `wait` for one to be noticed.
  std::optional<JobFailure> failure(std::chrono::milliseconds wait = {}) const;
  // Kills (SIGKILL) every child still running after `grace` and reaps it.
  void stop_all(std::chrono::milliseconds grace = {});
  // The failure was raised in this process: it need not be forced down.
  void mark_reported();

 private:
  ChildSupervisor() = default;
  // Waits for the children at exit; an unreported failure then ends the process non-zero.
  ~ChildSupervisor();

  struct Child {
    int rank;
    pid_t pid;
    std::string error_file;
    bool running = true;
  };

  void ensure_watching();
  void watch();
  // Reaps the children that have ended; a failure is recorded and kills the rest. Holds mutex_.
  void reap_locked();
  void fail_locked(JobFailure failure);
  void kill_running_locked();
  std::string describe_exit(const Child& child, int status) const;
  [[noreturn]] void end_process(const std::string& why) const;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<Child> children_;
  std::optional<JobFailure> failure_;
  std::chrono::steady_clock::time_point failed_at_;
  bool reported_ = false;
  bool exiting_ = false;
  std::string error_dir_;
  std::thread watcher_;
  int wake_pipe_[2] = {-1, -1};
};

}  // namespace fulgur
