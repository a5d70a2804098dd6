#pragma once
// Crash-safe writes for the loggers' files. A file is either replaced whole (written next to
// its destination, then renamed over it) or appended to with one write(2) of whole rows or
// records, cut back to its old length if that write fails: a killed process or a full disk
// never leaves a torn row or record behind for readers. Failures raise Error, naming the
// logger (`owner`) and the file.
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace fulgur {

class FileReplacement {
 public:
  // Starts <path>.tmp.
  FileReplacement(std::filesystem::path path, std::string owner);
  FileReplacement(const FileReplacement&) = delete;
  FileReplacement& operator=(const FileReplacement&) = delete;
  // Without commit(), removes the temporary file and leaves `path` as it was.
  ~FileReplacement();

  void write(std::string_view text);
  // Makes the new content durable and renames it over `path`.
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::string owner_;
  std::FILE* file_ = nullptr;
};

// Replaces `path` with `text` through a FileReplacement.
void replace_file(const std::filesystem::path& path, std::string_view text, std::string_view owner);

// Creates an empty `path`; false, and nothing touched, when something already has that name.
bool create_new_file(const std::filesystem::path& path, std::string_view owner);

// Appends `text` to the existing file `path` in one write.
void append_to_file(const std::filesystem::path& path, std::string_view text,
                    std::string_view owner);

}  // namespace fulgur
