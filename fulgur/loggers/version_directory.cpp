#include "fulgur/loggers/version_directory.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "fulgur/errors.h"
#include "fulgur/io/directory_listing.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kVersionPrefix = "version_";

}  // namespace

VersionDirectory::VersionDirectory(std::string owner, std::string save_dir, std::string name,
                                   std::optional<int> version)
    : owner_(std::move(owner)),
      save_dir_(std::move(save_dir)),
      name_(std::move(name)),
      version_(version) {
  if (version_ && *version_ < 0) {
    throw ConfigError(
        fmt::format("{}(version={}): version must be >= 0, or left unset to take the next free one",
                    owner_, *version_));
  }
}

int VersionDirectory::resolve() const {
  std::error_code ec;
  fs::path root = fs::path(save_dir_) / name_;
  if (!fs::is_directory(root, ec)) return 0;
  int next = 0;
  for (const auto& entry : list_directory(root.string())) {
    if (!entry.is_directory || !entry.name.starts_with(kVersionPrefix)) continue;
    // Lightning reads the number between "version_" and the next "_".
    std::string_view digits = std::string_view(entry.name).substr(kVersionPrefix.size());
    digits = digits.substr(0, digits.find('_'));
    int number = 0;
    if (parse_count(digits, number)) next = std::max(next, number + 1);
  }
  return next;
}

std::string VersionDirectory::version() const {
  if (!version_) version_ = resolve();
  return fmt::format("{}{}", kVersionPrefix, *version_);
}

std::string VersionDirectory::path() const {
  return (fs::path(save_dir_) / name_ / version()).string();
}

void VersionDirectory::create() {
  if (created_) return;
  std::error_code ec;
  fs::path dir = path();
  fs::create_directories(dir, ec);
  if (ec) {
    throw ConfigError(
        fmt::format("{} could not create its log directory {}: {}; choose a writable save_dir",
                    owner_, dir.string(), ec.message()));
  }
  created_ = true;
}

}  // namespace fulgur
