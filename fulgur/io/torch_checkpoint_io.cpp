#include "fulgur/io/torch_checkpoint_io.h"

#include <fcntl.h>
#include <signal.h>
#include <fmt/format.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string error_text(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return first_line(c10_error->what_without_backtrace());
  }
  return first_line(e.what());
}

// Writes `bytes` to `path` and flushes them to the disk; returns errno on failure (0 on success).
int write_synced(const std::string& path, const std::vector<char>& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return err;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return err;
  }
  return ::close(fd) == 0 ? 0 : errno;
}

// So that the rename itself survives a power loss; failure here does not undo the save.
void sync_directory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

int TorchCheckpointIO::remove_stale_temporaries(const std::string& dir) {
  static const std::regex temporary(R"(.+\.tmp-([0-9]+))");
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, m, temporary)) continue;
    const pid_t pid = static_cast<pid_t>(std::stoll(m[1]));
    // A live process (or one that reused the pid) may still be writing it.
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

void TorchCheckpointIO::save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) {
  std::vector<char> bytes;
  try {
    bytes = torch::pickle_save(c10::IValue(checkpoint));
  } catch (const std::exception& e) {
    throw CheckpointError(fmt::format(
        "cannot save checkpoint {}: its contents cannot be serialized ({}); keep checkpoint "
        "values to tensors, numbers, strings, lists and dicts",
        path, error_text(e)));
  }

  const fs::path target(path);
  const fs::path dir = target.parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      throw CheckpointError(
          fmt::format("cannot save checkpoint {}: cannot create directory {} ({})", path,
                      dir.string(), ec.message()));
    }
  }

  {
    std::lock_guard<std::mutex> lock(cleaned_mutex_);
    if (cleaned_dirs_.insert(dir.string()).second) remove_stale_temporaries(dir.string());
  }
  // Readers see the old file or the whole new one, never a partial write.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  if (int err = write_synced(tmp, bytes); err != 0) {
    ::unlink(tmp.c_str());
    throw CheckpointError(fmt::format("cannot save checkpoint {}: writing {} failed ({})", path,
                                      tmp, std::strerror(err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw CheckpointError(
        fmt::format("cannot save checkpoint {}: renaming {} into place failed ({})", path, tmp,
                    std::strerror(err)));
  }
  sync_directory(dir);
}

CheckpointDict TorchCheckpointIO::load_checkpoint(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw CheckpointError("checkpoint not found: " + path);

  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad() || !in.is_open()) {
    throw CheckpointError(fmt::format("cannot read checkpoint {}: {}", path, std::strerror(errno)));
  }
  // torch::pickle_save and torch.save both write zip archives; anything else is not ours and
  // is rejected before the unpickler sees it.
  static constexpr char kZipMagic[] = {'P', 'K', '\x03', '\x04'};
  if (bytes.size() < sizeof(kZipMagic) ||
      std::memcmp(bytes.data(), kZipMagic, sizeof(kZipMagic)) != 0) {
    throw CheckpointError(fmt::format(
        "cannot read checkpoint {}: the file is not a torch checkpoint (no zip header; {} bytes)",
        path, bytes.size()));
  }

  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    throw CheckpointError(
        fmt::format("cannot read checkpoint {}: the file is truncated or corrupt "
                    "({})",
                    path, error_text(e)));
  }
  if (!value.isGenericDict()) {
    throw CheckpointError(
        fmt::format("checkpoint {} does not hold a dict (found {}); it was not "
                    "written by fulgur or Lightning",
                    path, value.tagKind()));
  }
  // The unpickler types keys as Any; hand out the string-keyed dict every reader expects.
  auto checkpoint = make_checkpoint_dict();
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString()) {
      throw CheckpointError(
          fmt::format("checkpoint {} holds a dict whose keys are not all strings "
                      "(found a key of type {}); it was not written by fulgur or "
                      "Lightning",
                      path, entry.key().tagKind()));
    }
    checkpoint.insert(entry.key(), entry.value());
  }
  return checkpoint;
}

void TorchCheckpointIO::remove_checkpoint(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw CheckpointError(fmt::format("cannot remove checkpoint {}: {}", path, ec.message()));
  }
}

}  // namespace fulgur
