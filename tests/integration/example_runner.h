#pragma once
// The fixture for tests that run the real build/bin/fashion-mnist as a child process in a fresh
// temporary folder, and helpers to read what it leaves behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "project_paths.h"

namespace fulgur::testing {

namespace fs = std::filesystem;

inline const std::string kBinary = bin_dir() + "/fashion-mnist";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

class FashionMNISTExample : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("fulgur_example_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    ASSERT_TRUE(fs::exists(kBinary)) << kBinary << " was not built";
  }
  void TearDown() override { fs::remove_all(dir); }

  // Runs the binary in `dir` with `args`; stdout and stderr are captured apart.
  RunResult run(const std::vector<std::string>& args) {
    std::string command = "cd " + quote(dir.string()) + " && " + quote(kBinary);
    for (const auto& arg : args) command += " " + quote(arg);
    command +=
        " >" + quote((dir / "stdout.txt").string()) + " 2>" + quote((dir / "stderr.txt").string());
    const int status = std::system(command.c_str());
    RunResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_file(dir / "stdout.txt");
    result.err = read_file(dir / "stderr.txt");
    return result;
  }

  // Starts the binary in `dir` without waiting; stdout and stderr go to `name`.out / `name`.err.
  pid_t spawn(const std::vector<std::string>& args, const std::string& name) {
    std::vector<std::string> all{kBinary};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = (dir / (name + ".out")).string(), err = (dir / (name + ".err")).string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }
  // Waits for `pid`; its exit code, or 128 + the signal that ended it.
  static int wait_for(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // A mistake must end in exactly one line on stderr, in the program's format, never a crash.
  static void expect_one_error_line(const RunResult& r) {
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
    EXPECT_EQ(lines[0].rfind("fashion-mnist: error: ", 0), 0u) << lines[0];
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos);
    EXPECT_EQ(r.err.find("Aborted"), std::string::npos);
  }

  fs::path dir;
};

// The values of one column of a metrics.csv, in row order, skipping empty cells.
inline std::vector<double> column(const fs::path& csv, const std::string& name) {
  const auto lines = lines_of(read_file(csv));
  std::vector<double> values;
  if (lines.empty()) return values;
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
  };
  const auto header = split(lines[0]);
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return values;
  const auto index = static_cast<size_t>(it - header.begin());
  for (size_t i = 1; i < lines.size(); ++i) {
    const auto cells = split(lines[i]);
    if (index < cells.size() && !cells[index].empty()) values.push_back(std::stod(cells[index]));
  }
  return values;
}

// The number in the results-table row `  <name>    <value>`.
inline std::optional<double> table_value(const std::string& out, const std::string& name) {
  std::optional<double> value;
  for (const auto& line : lines_of(out)) {
    std::istringstream in(line);
    std::string key;
    double number = 0;
    if (in >> key >> number && key == name) value = number;
  }
  return value;
}

}  // namespace fulgur::testing
