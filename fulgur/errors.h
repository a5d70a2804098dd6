#pragma once
// fulgur's exceptions. Every error the library raises is one of these; the message says
// what was wrong and how to fix it. The library never aborts or exits.
#include <stdexcept>
#include <string>

namespace fulgur {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A flag, option or combination of them that cannot be honoured.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A checkpoint that cannot be written, read or applied.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

// Ranks that cannot meet, talk, or agree.
class DistributedError : public Error {
 public:
  using Error::Error;
};

// A dataset or data file that is missing, corrupt or misused.
class DataError : public Error {
 public:
  using Error::Error;
};

// User code broke a contract the Trainer relies on (e.g. a missing step, a bad return).
class MisconfigurationError : public Error {
 public:
  using Error::Error;
};

// Training stopped gracefully on a signal (SIGTERM, SIGUSR1) after saving a checkpoint.
class Interrupted : public Error {
 public:
  Interrupted(const std::string& message, int signal, std::string checkpoint_path)
      : Error(message), signal_(signal), checkpoint_path_(std::move(checkpoint_path)) {}
  int signal() const { return signal_; }
  const std::string& checkpoint_path() const { return checkpoint_path_; }

 private:
  int signal_;
  std::string checkpoint_path_;
};

}  // namespace fulgur
