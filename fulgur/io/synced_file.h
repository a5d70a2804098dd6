#pragma once
// A new file written front to back and then made durable, for checkpoints of any size.
// Small writes are gathered in a 1 MiB buffer (the zip writer emits many small headers).
// Written data is handed to the disk while the writer goes on (write-behind) and dropped from
// the page cache once it is on the disk (drop-behind): the final fsync waits only for the
// tail, and a save of gigabytes keeps a few windows of page cache instead of the whole file,
// recycling the same pages instead of asking the kernel for fresh ones.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace fulgur {

class SyncedFile {
 public:
  // Creates or truncates `path`; a failure shows in error().
  explicit SyncedFile(const std::string& path);
  ~SyncedFile();
  SyncedFile(const SyncedFile&) = delete;
  SyncedFile& operator=(const SyncedFile&) = delete;

  // False once any write failed; the first errno stays in error().
  bool write(const char* data, size_t size);
  // Writes what is buffered, flushes everything to the disk and closes; returns errno (0 on
  // success).
  int finish();
  int error() const { return error_; }

 private:
  bool flush_buffer();
  bool write_fully(const char* data, size_t size);
  // Starts writeback of what was written since the last call and drops the window before it.
  void write_behind();

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
  off_t written_ = 0;    // bytes handed to the kernel
  off_t submitted_ = 0;  // writeback started for [dropped_, submitted_)
  off_t dropped_ = 0;    // [0, dropped_) is on the disk and out of the page cache
};

}  // namespace fulgur
