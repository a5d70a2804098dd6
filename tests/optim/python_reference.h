#pragma once
// Reference numbers from real PyTorch for the scheduler tests: run_python writes a script to a
// file of its own (ctest runs tests in parallel) and runs it with python() (tests/python.h:
// Debian's /usr/bin/python3 with python3-torch 1.13); a script that fails is a test failure
// showing its output (its stderr goes to the test's). number_rows reads what the script
// printed, one row of numbers per line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "python.h"

namespace fulgur::testing {

inline std::string run_python(const std::string& script) {
  static std::atomic<int> counter{0};
  const std::string path =
      ::testing::TempDir() + fmt::format("fulgur_reference_{}_{}.py", ::getpid(), counter++);
  std::FILE* file = std::fopen(path.c_str(), "w");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return "";
  std::fputs(script.c_str(), file);
  std::fclose(file);
  std::FILE* pipe = ::popen(fmt::format("{} '{}'", python(), path).c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  std::remove(path.c_str());
  EXPECT_EQ(status, 0) << "python failed; script:\n" << script << "\noutput:\n" << out;
  return out;
}

// Python's repr() of a float reads back exactly; strtod also reads its "inf" and "nan".
inline std::vector<std::vector<double>> number_rows(const std::string& output) {
  std::vector<std::vector<double>> rows;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<double> row;
    std::string field;
    while (fields >> field) {
      char* end = nullptr;
      row.push_back(std::strtod(field.c_str(), &end));
      EXPECT_EQ(*end, '\0') << "not a number: \"" << field << "\" in line \"" << line << "\"";
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// `value` as a Python float literal that reads back exactly (fmt's shortest round trip, made a
// float where it looks like an int: OneCycleLR insists on a float pct_start).
inline std::string python_float(double value) {
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  if (std::isnan(value)) return "float('nan')";
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

inline std::string python_list(const std::vector<double>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + python_float(values[i]);
  return text + "]";
}

}  // namespace fulgur::testing
