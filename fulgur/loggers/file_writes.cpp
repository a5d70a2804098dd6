#include "fulgur/loggers/file_writes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void throw_io_error(std::string_view owner, const fs::path& path, const char* what,
                                 int error) {
  throw Error(
      fmt::format("{} could not {} {}: {}; check that save_dir is writable and the disk has space",
                  owner, what, path.string(), std::strerror(error)));
}

// Closes on every path out, so an exception never leaks the descriptor.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports close(2)'s error, which may be a delayed write error.
  int close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace

FileReplacement::FileReplacement(fs::path path, std::string owner)
    : path_(std::move(path)), tmp_(path_), owner_(std::move(owner)) {
  tmp_ += ".tmp";
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw_io_error(owner_, tmp_, "create", errno);
}

FileReplacement::~FileReplacement() {
  if (file_) {
    std::fclose(file_);
    std::error_code ignored;
    fs::remove(tmp_, ignored);
  }
}

void FileReplacement::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw_io_error(owner_, tmp_, "write", errno);
}

void FileReplacement::commit() {
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0)
    throw_io_error(owner_, tmp_, "write", errno);
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) {
    int error = errno;
    std::error_code ignored;
    fs::remove(tmp_, ignored);
    throw_io_error(owner_, tmp_, "write", error);
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int error = errno;
    std::error_code ignored;
    fs::remove(tmp_, ignored);
    throw_io_error(owner_, path_, "replace", error);
  }
}

void replace_file(const fs::path& path, std::string_view text, std::string_view owner) {
  FileReplacement file(path, std::string(owner));
  file.write(text);
  file.commit();
}

bool create_new_file(const fs::path& path, std::string_view owner) {
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    if (errno == EEXIST) return false;
    throw_io_error(owner, path, "create", errno);
  }
  if (int error = fd.close(); error != 0) throw_io_error(owner, path, "create", error);
  return true;
}

void append_to_file(const fs::path& path, std::string_view text, std::string_view owner) {
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (fd.get() < 0) throw_io_error(owner, path, "open", errno);
  struct stat before;
  if (::fstat(fd.get(), &before) != 0) throw_io_error(owner, path, "open", errno);
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(fd.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;
      // Part of `text` may be in the file (a disk that filled up midway): cut it off again, so
      // the file still ends with a whole row or record and a later append follows it.
      // If that fails too, the original error is still the one to report.
      [[maybe_unused]] int ignored = ::ftruncate(fd.get(), before.st_size);
      throw_io_error(owner, path, "append to", error);
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (int error = fd.close(); error != 0) throw_io_error(owner, path, "append to", error);
}

}  // namespace fulgur
