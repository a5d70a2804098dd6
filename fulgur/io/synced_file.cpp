#include "fulgur/io/synced_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace fulgur {
namespace {

constexpr size_t kBufferSize = size_t{1} << 20;
// Writeback is started every window and waited for one window later: two windows of page
// cache in use, and the disk busy while the writer computes the next record's CRC.
constexpr off_t kWindow = off_t{4} << 20;

}  // namespace

SyncedFile::SyncedFile(const std::string& path)
    : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) {
  if (fd_ < 0) error_ = errno;
  buffer_.reserve(kBufferSize);
}

SyncedFile::~SyncedFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool SyncedFile::write(const char* data, size_t size) {
  if (error_ != 0) return false;
  if (buffer_.size() + size <= kBufferSize) {
    buffer_.insert(buffer_.end(), data, data + size);
    return true;
  }
  return flush_buffer() && write_fully(data, size);
}

int SyncedFile::finish() {
  if (flush_buffer() && ::fsync(fd_) != 0) error_ = errno;
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  return error_;
}

bool SyncedFile::flush_buffer() {
  const bool ok = write_fully(buffer_.data(), buffer_.size());
  buffer_.clear();
  return ok;
}

bool SyncedFile::write_fully(const char* data, size_t size) {
  if (error_ != 0) return false;
  while (size > 0) {
    // Window-sized pieces, so that writeback starts while the rest is still being copied.
    const ssize_t n = ::write(fd_, data, std::min(size, static_cast<size_t>(kWindow)));
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
    written_ += n;
    if (written_ - submitted_ >= kWindow) write_behind();
  }
  return true;
}

void SyncedFile::write_behind() {
  // Both calls are hints: a file system without them still gets everything at fsync, and a
  // writeback error shows there too.
  ::sync_file_range(fd_, submitted_, written_ - submitted_, SYNC_FILE_RANGE_WRITE);
  if (submitted_ > dropped_) {
    ::sync_file_range(fd_, dropped_, submitted_ - dropped_,
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                          SYNC_FILE_RANGE_WAIT_AFTER);
    ::posix_fadvise(fd_, dropped_, submitted_ - dropped_, POSIX_FADV_DONTNEED);
    dropped_ = submitted_;
  }
  submitted_ = written_;
}

}  // namespace fulgur
