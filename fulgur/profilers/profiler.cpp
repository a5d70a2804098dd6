#include "fulgur/profilers/profiler.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

void Profiler::setup(const std::string& stage, std::optional<int> local_rank,
                     const std::string& log_dir) {
  stage_ = stage;
  local_rank_ = local_rank;
  log_dir_ = log_dir;
}

std::string Profiler::report_path() const {
  if (options_.filename.empty()) return "";
  // As Lightning's _prepare_filename: the parts joined by "-", path-unsafe characters as "_".
  std::string base = stage_.empty() ? options_.filename : stage_ + "-" + options_.filename;
  if (local_rank_) base += "-" + std::to_string(*local_rank_);
  base = std::regex_replace(base, std::regex(R"([\\/:*?"<>|\n\r\t]+)"), "_");
  base = std::regex_replace(base, std::regex("_+"), "_");
  const std::string dir = options_.dirpath.empty() ? log_dir_ : options_.dirpath;
  return (std::filesystem::path(dir.empty() ? "." : dir) / (base + ".txt")).string();
}

void Profiler::describe() {
  const std::string report = summary();
  if (report.empty()) return;
  const std::string path = report_path();
  if (path.empty()) {
    if (local_rank_.value_or(0) == 0) std::cout << report << std::flush;
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::app);
  out << report;
  out.flush();
  if (!out) throw ConfigError(fmt::format("cannot write the profiler's report to {}", path));
}

void ProfiledAction::begin(std::string action) {
  action_ = std::move(action);
  profiler_->start(action_);
}

ProfiledAction::~ProfiledAction() {
  if (profiler_ == nullptr) return;
  try {
    profiler_->stop(action_);
  } catch (...) {
    // A destructor runs during unwinding too; the action's timing is lost, nothing else.
  }
}

}  // namespace fulgur
