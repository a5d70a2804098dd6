#include "fulgur/plot/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "fulgur/errors.h"

namespace fulgur::plot {
namespace {

[[noreturn]] void fail(const std::string& path, const char* what, int error) {
  throw Error(fmt::format("cannot {} {}: {}; check that its directory exists and is writable", what,
                          path, std::strerror(error)));
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  if (path.empty()) throw Error("cannot write a file with an empty path");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "write", EISDIR);
  // A name no other writer uses (process id and a counter; O_EXCL proves it), created 0666
  // less the umask like any new file: mkstemp's 0600 would hide a chart meant to be shared,
  // and changing the umask to undo it races with other threads.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) fail(path, "write", errno);
  const bool written = write_all(fd, content) && ::fsync(fd) == 0;
  const int error = errno;
  if (::close(fd) != 0 || !written) {
    const int reason = written ? errno : error;
    ::unlink(tmp.c_str());
    fail(path, "write", reason);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int reason = errno;
    ::unlink(tmp.c_str());
    fail(path, "replace", reason);
  }
}

}  // namespace fulgur::plot
