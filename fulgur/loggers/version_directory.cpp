#include "fulgur/loggers/version_directory.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string_view>

#include "fulgur/errors.h"

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
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::error_code dir_ec;
    if (!entry.is_directory(dir_ec)) continue;
    std::string dir = entry.path().filename().string();
    if (!dir.starts_with(kVersionPrefix)) continue;
    // Lightning reads the number between "version_" and the next "_".
    std::string_view digits = std::string_view(dir).substr(kVersionPrefix.size());
    digits = digits.substr(0, digits.find('_'));
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    int number = 0;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (err != std::errc() || end != digits.data() + digits.size()) continue;
    next = std::max(next, number + 1);
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
