#pragma once
// VersionDirectory: a run's directory <save_dir>/<name>/version_N, laid out as Lightning's
// loggers lay it out. N is the given version, else one more than the highest existing
// version_K directory (0 when there is none); it is decided on first use and never changes
// afterwards. The directory itself appears only when create() is called, so a logger that
// never writes leaves nothing behind.
#include <optional>
#include <string>

namespace fulgur {

class VersionDirectory {
 public:
  // `owner` names the logger in error messages. Raises ConfigError for a negative version.
  VersionDirectory(std::string owner, std::string save_dir, std::string name,
                   std::optional<int> version);

  // "version_N".
  std::string version() const;
  // <save_dir>/<name>/version_N.
  std::string path() const;
  // Creates the directory and its parents on the first call; ConfigError when it cannot.
  void create();
  bool created() const { return created_; }

 private:
  int resolve() const;

  std::string owner_;
  std::string save_dir_;
  std::string name_;
  mutable std::optional<int> version_;
  bool created_ = false;
};

}  // namespace fulgur
