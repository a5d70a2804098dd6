#include "fulgur/io/torch_checkpoint_io.h"

#include <fcntl.h>
#include <signal.h>
#include <fmt/format.h>
#include <caffe2/serialize/file_adapter.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickler.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>
#include <system_error>
#include <thread>

#include "fulgur/errors.h"
#include "fulgur/io/directory_listing.h"
#include "fulgur/io/error_text.h"
#include "fulgur/io/pickle_bounds.h"
#include "fulgur/io/python_unpickler.h"
#include "fulgur/io/synced_file.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

// torch::pickle_save's format (a zip with data.pkl and one record per tensor storage), streamed
// to `path` instead of built in memory first: no second copy of every tensor, no reallocations.
// Returns errno of a failed write (0 on success); throws for contents that cannot be pickled.
int write_pickled(const c10::IValue& value, const std::string& path) {
  std::vector<char> pickled;
  torch::jit::Pickler pickler(
      [&](const char* bytes, size_t size) { pickled.insert(pickled.end(), bytes, bytes + size); });
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();

  SyncedFile file(path);
  if (file.error() != 0) return file.error();
  try {
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t size) -> size_t {
      return file.write(static_cast<const char*>(data), size) ? size : 0;
    });
    torch::jit::writeArchiveAndTensors("data", pickled.data(), pickled.size(),
                                       pickler.tensorData(), writer);
    writer.writeEndOfFile();
  } catch (const c10::Error&) {
    // The writer saw a short write; the file knows why.
    if (file.error() != 0) return file.error();
    throw;
  }
  return file.finish();
}

// Replacing or unlinking a large file frees its blocks (and trims them on a file system mounted
// with discard) before the call returns: 0.13 s for 400 MB here. An open descriptor moves that
// work to its close, which a short-lived thread does while training goes on.
class DeferredRelease {
 public:
  explicit DeferredRelease(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~DeferredRelease() {
    if (fd_ < 0) return;
    try {
      std::thread([fd = fd_] { ::close(fd); }).detach();
    } catch (const std::system_error&) {  // no thread to be had: pay for it here
      ::close(fd_);
    }
  }
  DeferredRelease(const DeferredRelease&) = delete;
  DeferredRelease& operator=(const DeferredRelease&) = delete;

 private:
  int fd_;
};

// So that the rename itself survives a power loss; failure here does not undo the save.
void sync_directory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

int TorchCheckpointIO::remove_stale_temporaries(const std::string& dir) {
  static constexpr std::string_view kMarker = ".tmp-";
  int removed = 0;
  for (const auto& entry : list_directory(dir)) {
    // <name>.tmp-<pid>: the pid of the process that was writing it.
    const std::string& name = entry.name;
    const size_t at = name.rfind(kMarker);
    if (at == std::string::npos || at == 0 || !entry.is_regular_file) continue;
    pid_t pid = 0;
    if (!parse_count(std::string_view(name).substr(at + kMarker.size()), pid)) continue;
    // A live process (or one that reused the pid) may still be writing it.
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    const std::string path = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::unlink(path.c_str()) == 0) ++removed;
  }
  return removed;
}

void TorchCheckpointIO::save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) {
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
  int err = 0;
  try {
    err = write_pickled(c10::IValue(checkpoint), tmp);
  } catch (const std::exception& e) {
    ::unlink(tmp.c_str());
    throw CheckpointError(fmt::format(
        "cannot save checkpoint {}: its contents cannot be serialized ({}); keep checkpoint "
        "values to tensors, numbers, strings, lists and dicts",
        path, error_text(e)));
  }
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw CheckpointError(fmt::format("cannot save checkpoint {}: writing {} failed ({})", path,
                                      tmp, std::strerror(err)));
  }
  const DeferredRelease replaced(path);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
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

  // torch::pickle_save and torch.save both write zip archives; anything else is not ours and
  // is rejected before the unpickler sees it.
  static constexpr char kZipMagic[] = {'P', 'K', '\x03', '\x04'};
  char magic[sizeof(kZipMagic)] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    throw CheckpointError(fmt::format("cannot read checkpoint {}: {}", path, std::strerror(errno)));
  }
  in.read(magic, sizeof(magic));
  if (in.gcount() != sizeof(magic) || std::memcmp(magic, kZipMagic, sizeof(kZipMagic)) != 0) {
    throw CheckpointError(fmt::format(
        "cannot read checkpoint {}: the file is not a torch checkpoint (no zip header; {} bytes)",
        path, fs::file_size(path, ec)));
  }
  in.close();

  c10::IValue value;
  std::optional<std::string> violation;
  std::optional<std::string> not_data;  // why the Python-pickle reader refused it
  try {
    // torch::pickle_load's reading, from the file instead of a copy of it in memory: each
    // tensor is read once, straight into its own storage. No type resolver and no object
    // loader: a checkpoint holds data only, it never runs code.
    caffe2::serialize::PyTorchStreamReader reader(
        std::make_unique<caffe2::serialize::FileAdapter>(path));
    const auto [pickle, pickle_size] = reader.getRecord("data.pkl");
    violation = pickle_bounds_violation(static_cast<const uint8_t*>(pickle.get()), pickle_size);
    if (!violation) {
      try {
        value = torch::jit::readArchiveAndTensors("data", /*pickle_prefix=*/"",
                                                  /*tensor_prefix=*/"",
                                                  /*type_resolver=*/c10::nullopt,
                                                  /*obj_loader=*/c10::nullopt,
                                                  /*device=*/c10::nullopt, reader);
      } catch (const std::exception&) {
        // What LibTorch writes, LibTorch reads; a pickle it cannot read may be Python's
        // (torch.save, so Lightning's checkpoints), whose reader then says what is wrong.
        try {
          value = unpickle_python(static_cast<const uint8_t*>(pickle.get()), pickle_size, reader);
        } catch (const std::exception& e) {
          not_data = error_text(e);
        }
      }
    }
  } catch (const std::exception& e) {
    throw CheckpointError(
        fmt::format("cannot read checkpoint {}: the file is truncated or corrupt "
                    "({})",
                    path, error_text(e)));
  }
  if (violation) {
    throw CheckpointError(
        fmt::format("cannot read checkpoint {}: the file is corrupt: {}", path, *violation));
  }
  if (not_data) throw CheckpointError(fmt::format("cannot read checkpoint {}: {}", path, *not_data));
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
  const DeferredRelease removed(path);
  std::error_code ec;
  fs::remove(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw CheckpointError(fmt::format("cannot remove checkpoint {}: {}", path, ec.message()));
  }
}

}  // namespace fulgur
