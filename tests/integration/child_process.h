#pragma once
// A real child process for the integration tests: started with fork/execve, its stdout and
// stderr in files, its environment this one's plus overrides; waited for with a deadline (a
// test never hangs on a stuck child: past the deadline it is killed and the wait fails).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fulgur::testing {

namespace fs = std::filesystem;

inline std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "name=value" lines of a file as a map (the workers' output format).
inline std::map<std::string, std::string> key_values(const fs::path& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(file_text(path));
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// True while `pid` runs (a zombie has ended).
inline bool process_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = file_text("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

class ChildProcess {
 public:
  // Runs `argv` with `overrides` added to (or, when nullopt, removed from) this environment.
  ChildProcess(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
               const std::map<std::string, std::optional<std::string>>& overrides = {})
      : out_(out), err_(err) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (!overrides.count(entry.substr(0, entry.find('=')))) env.push_back(entry);
    }
    for (const auto& [name, value] : overrides) {
      if (value) env.push_back(name + "=" + *value);
    }
    std::vector<std::string> args = argv;
    std::vector<char*> c_argv, c_env;
    for (auto& a : args) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    for (auto& e : env) c_env.push_back(e.data());
    c_env.push_back(nullptr);
    const std::string out_path = out.string(), err_path = err.string();
    pid_ = ::fork();
    if (pid_ == 0) {
      const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::execve(c_argv[0], c_argv.data(), c_env.data());
      ::_exit(127);
    }
  }
  ~ChildProcess() {
    if (!exit_code_ && pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // The exit code (128 + N when killed by signal N), or nullopt when it did not end within
  // `timeout` (it is killed then).
  std::optional<int> wait(std::chrono::milliseconds timeout = std::chrono::minutes(3)) {
    if (exit_code_) return exit_code_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        exit_code_ = -1;
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_code_;
  }
  std::string out() const { return file_text(out_); }
  std::string err() const { return file_text(err_); }

 private:
  fs::path out_, err_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace fulgur::testing
