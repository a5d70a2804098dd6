#include "fulgur/profilers/simple_profiler.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

// Python's format(x, ".5"): five significant digits, and a fixed-point number keeps a ".0".
std::string five_digits(double x) {
  std::string s = fmt::format("{:.5g}", x);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// Python's str.expandtabs(8).
std::string expand_tabs(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out.clear();  // only the last line's width matters here
      continue;
    }
    if (c == '\t') {
      do out += ' ';
      while (out.size() % 8 != 0);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

SimpleProfiler::SimpleProfiler(SimpleProfilerOptions options)
    : Profiler({options.dirpath, options.filename}),
      extended_(options.extended),
      created_(Clock::now()) {}

void SimpleProfiler::start(const std::string& action) {
  if (!running_.emplace(action, Clock::now()).second) {
    throw MisconfigurationError(
        fmt::format("Attempted to start {} which has already started.", action));
  }
}

void SimpleProfiler::stop(const std::string& action) {
  const auto end = Clock::now();
  const auto it = running_.find(action);
  if (it == running_.end()) {
    throw MisconfigurationError(fmt::format(
        "Attempting to stop recording an action ({}) which was never started.", action));
  }
  Record& record = records_[action];
  ++record.calls;
  record.total_seconds += std::chrono::duration<double>(end - it->second).count();
  running_.erase(it);
}

// Lightning's layout, tabs and all, so reports from both read the same.
std::string SimpleProfiler::summary() const {
  std::string out;
  if (!stage().empty()) {
    std::string stage_name = stage();
    std::transform(stage_name.begin(), stage_name.end(), stage_name.begin(), ::toupper);
    out += stage_name + " ";
  }
  out += "Profiler Report\n";
  if (records_.empty()) return extended_ ? out + "\n" : "";
  size_t width = 0;
  for (const auto& [action, _] : records_) width = std::max(width, action.size());
  auto row = [&](const std::vector<std::string>& cells) {
    std::string r = fmt::format("\n|  {:<{}}\t|", cells[0], width);
    for (size_t i = 1; i < cells.size(); ++i) r += fmt::format("  {:<15}\t|", cells[i]);
    return r;
  };
  const std::string header =
      extended_ ? row({"Action", "Mean duration (s)", "Num calls", "Total time (s)", "Percentage %"})
                : row({"Action", "Mean duration (s)", "Total time (s)"});
  const std::string rule = "\n" + std::string(expand_tabs(header).size(), '-');
  out += rule + header + rule;

  struct Line {
    std::string action;
    double mean;
    int64_t calls;
    double total;
    double percent;
  };
  const double elapsed = std::chrono::duration<double>(Clock::now() - created_).count();
  std::vector<Line> lines;
  int64_t all_calls = 0;
  for (const auto& [action, r] : records_) {
    lines.push_back({action, r.total_seconds / static_cast<double>(r.calls), r.calls,
                     r.total_seconds, 100.0 * r.total_seconds / elapsed});
    all_calls += r.calls;
  }
  // Most time first (extended), else the largest mean first; stable, so ties keep name order.
  std::stable_sort(lines.begin(), lines.end(), [&](const Line& a, const Line& b) {
    return extended_ ? a.percent > b.percent : a.mean > b.mean;
  });
  if (extended_) {
    out += row({"Total", "-", std::to_string(all_calls), five_digits(elapsed), "100 %"}) + rule;
  }
  for (const auto& l : lines) {
    out += extended_ ? row({l.action, five_digits(l.mean), std::to_string(l.calls),
                            five_digits(l.total), five_digits(l.percent)})
                     : row({l.action, five_digits(l.mean), five_digits(l.total)});
  }
  return out + rule + "\n";
}

}  // namespace fulgur
