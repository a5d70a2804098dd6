#pragma once
// fulgur::SimpleProfiler — Lightning's SimpleProfiler: the wall time of every action, reported
// per action as mean duration, number of calls, total time and share of the time since the
// profiler was made (extended), or mean and total only. It keeps a count and a sum per action,
// not every duration, so a long run does not grow it.
#include <chrono>
#include <map>
#include <string>

#include "fulgur/profilers/profiler.h"

namespace fulgur {

struct SimpleProfilerOptions {
  std::string dirpath;   // as ProfilerOptions
  std::string filename;  // as ProfilerOptions
  bool extended = true;  // add the calls and percentage columns
};

class SimpleProfiler : public Profiler {
 public:
  using Clock = std::chrono::steady_clock;
  explicit SimpleProfiler(SimpleProfilerOptions options = {});

  // An action started twice, or stopped without a start, is a MisconfigurationError.
  void start(const std::string& action) override;
  void stop(const std::string& action) override;
  std::string summary() const override;

  struct Record {
    int64_t calls = 0;
    double total_seconds = 0.0;
  };
  const std::map<std::string, Record>& records() const { return records_; }

 private:
  bool extended_;
  Clock::time_point created_;
  std::map<std::string, Clock::time_point> running_;
  std::map<std::string, Record> records_;
};

}  // namespace fulgur
