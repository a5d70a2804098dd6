#pragma once
// SignalConnector: SIGTERM (a scheduler stopping the job) and SIGUSR1 (SLURM's warning before a
// requeue) stop training gracefully instead of killing it mid-step. While fit runs, handlers only
// record the signal; the training loop asks `received()` after each batch, and the Trainer then
// saves <default_root_dir>/hpc_ckpt_<N>.ckpt and raises fulgur::Interrupted. The handlers that
// were installed before fit are put back when it ends.
#include <csignal>
#include <string>

namespace fulgur {

class SignalConnector {
 public:
  SignalConnector() = default;
  ~SignalConnector() { restore_handlers(); }
  SignalConnector(const SignalConnector&) = delete;
  SignalConnector& operator=(const SignalConnector&) = delete;

  // Clears any signal recorded before, then installs the handlers.
  void register_handlers();
  void restore_handlers();
  // The signal received since register_handlers(), 0 when none.
  int received() const;

  // <dir>/hpc_ckpt_<N>.ckpt with N one more than the largest already there (Lightning's naming).
  static std::string hpc_save_path(const std::string& dir);
  // The hpc_ckpt_<N>.ckpt in `dir` with the largest N, what ckpt_path="hpc" resumes from
  // (Lightning's _hpc_resume_path); "" when there is none.
  static std::string hpc_resume_path(const std::string& dir);
  // "SIGTERM", "SIGUSR1", or "signal N".
  static std::string signal_name(int signal);

 private:
  bool registered_ = false;
  struct sigaction previous_term_ {};
  struct sigaction previous_usr1_ {};
};

}  // namespace fulgur
