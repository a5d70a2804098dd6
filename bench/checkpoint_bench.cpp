// checkpoint-bench: how long a checkpoint of a ~100M-parameter model keeps the training thread
// waiting, synchronously (TorchCheckpointIO) and asynchronously (AsyncCheckpointIO), against
// what the disk itself can do (dd with conv=fdatasync, measured in the same run so that the
// figures share the disk's mood). Prints a markdown table of medians over --runs runs.
//
//   checkpoint-bench [--runs N] [--mparams M] [--dir DIR]
#include <fcntl.h>
#include <fmt/format.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/io/async_checkpoint_io.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "series.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kMB = 1e6;  // dd reports MB/s in powers of ten; so does this table
constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kSide = 4096;  // each "layer" is a 4096x4096 weight and a 4096 bias

struct Options {
  int runs = 5;
  double mparams = 100;
  std::string dir;  // empty: the system temporary directory
};

void usage(std::ostream& out) {
  out << "usage: checkpoint-bench [--runs N (default 5)] [--mparams M (model size in millions "
         "of float32 parameters, default 100)] [--dir DIR (a fresh folder is made inside and "
         "removed; default the temporary directory)]\n";
}

// Nothing when the user asked for help.
std::optional<Options> parse(int argc, char** argv) {
  Options options;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw fulgur::ConfigError(fmt::format("{} needs a value", argv[i]));
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    try {
      if (flag == "--runs") {
        options.runs = std::stoi(value(i));
      } else if (flag == "--mparams") {
        options.mparams = std::stod(value(i));
      } else if (flag == "--dir") {
        options.dir = value(i);
      } else if (flag == "--help" || flag == "-h") {
        usage(std::cout);
        return std::nullopt;
      } else {
        throw fulgur::ConfigError(fmt::format("unknown flag {}", flag));
      }
    } catch (const std::logic_error&) {  // stoi/stod: not a number
      throw fulgur::ConfigError(fmt::format("{} needs a number, got '{}'", flag, argv[i]));
    }
  }
  if (options.runs < 1) throw fulgur::ConfigError("--runs must be at least 1");
  if (options.mparams <= 0) throw fulgur::ConfigError("--mparams must be positive");
  return options;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A model's state_dict in Lightning's checkpoint shape, of about `mparams` million parameters.
fulgur::CheckpointDict make_checkpoint(double mparams, int64_t* parameters) {
  const auto layers =
      std::max<int64_t>(1, static_cast<int64_t>(mparams * 1e6 / (kSide * kSide + kSide) + 0.5));
  auto state_dict = fulgur::make_checkpoint_dict();
  *parameters = 0;
  for (int64_t i = 0; i < layers; ++i) {
    auto weight = torch::randn({kSide, kSide});
    auto bias = torch::randn({kSide});
    *parameters += weight.numel() + bias.numel();
    state_dict.insert(fmt::format("layers.{}.weight", i), weight);
    state_dict.insert(fmt::format("layers.{}.bias", i), bias);
  }
  auto checkpoint = fulgur::make_checkpoint_dict();
  checkpoint.insert("epoch", int64_t{3});
  checkpoint.insert("global_step", int64_t{12000});
  checkpoint.insert("state_dict", state_dict);
  return checkpoint;
}

// What the training thread pays at least in an asynchronous save: one copy of every tensor.
double time_host_copy(const fulgur::CheckpointDict& checkpoint) {
  const auto start = Clock::now();
  auto copy = fulgur::make_checkpoint_dict();
  for (const auto& entry : checkpoint.at("state_dict").toGenericDict()) {
    copy.insert(entry.key(), entry.value().toTensor().clone());
  }
  return seconds_since(start);
}

// The same copy into buffers that were written before, as a pool of host buffers recycled from
// one save to the next would do: no fresh pages to fault in.
double time_copy_into(const fulgur::CheckpointDict& checkpoint,
                      const std::vector<torch::Tensor>& buffers) {
  const auto start = Clock::now();
  size_t i = 0;
  for (const auto& entry : checkpoint.at("state_dict").toGenericDict()) {
    buffers[i++].copy_(entry.value().toTensor());
  }
  return seconds_since(start);
}

// So that a load reads the disk, not the page cache the save just filled (no root needed).
void drop_from_page_cache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// The disk's sequential write speed in MB/s, as dd reports it for `mib` MiB with fdatasync.
double dd_write_speed(const fs::path& dir, int64_t mib) {
  const fs::path target = dir / "dd.bin";
  const std::string command = fmt::format(
      "LC_ALL=C dd if=/dev/zero of='{}' bs=1M count={} conv=fdatasync 2>&1", target.string(), mib);
  const auto start = Clock::now();
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run dd");
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  const double elapsed = seconds_since(start);
  fs::remove(target);
  if (status != 0) throw std::runtime_error("dd failed: " + output);
  // "419430400 bytes (419 MB, 400 MiB) copied, 1.2345 s, 340 MB/s": dd's own clock (it includes
  // the fdatasync); our clock around the whole process is the fallback.
  std::smatch match;
  static const std::regex kCopied(R"((\d+) bytes .*copied, ([0-9.eE+-]+) s)");
  if (std::regex_search(output, match, kCopied)) {
    const double seconds = std::stod(match[2].str());
    if (seconds > 0) return std::stod(match[1].str()) / kMB / seconds;
  }
  return static_cast<double>(mib * kMiB) / kMB / elapsed;
}

using fulgur::bench::Series;

std::string seconds_row(const std::string& name, const Series& s, double bytes) {
  return fmt::format("| {} | {:.3f} s | {:.3f} – {:.3f} s | {:.0f} MB/s |\n", name, s.median(),
                     s.min(), s.max(), bytes / kMB / s.median());
}
std::string ratio_row(const std::string& name, const Series& s) {
  return fmt::format("| {} | {:.2f} | {:.2f} – {:.2f} | |\n", name, s.median(), s.min(), s.max());
}

// Same contents and shape as what was saved.
void check_same(const fulgur::CheckpointDict& expected, const fulgur::CheckpointDict& loaded,
                const std::string& what) {
  const auto a = expected.at("state_dict").toGenericDict();
  const auto b = loaded.at("state_dict").toGenericDict();
  bool same = a.size() == b.size() && loaded.at("global_step").toInt() == 12000;
  for (const auto& entry : a) {
    same = same && b.contains(entry.key()) &&
           torch::equal(entry.value().toTensor(), b.at(entry.key()).toTensor());
  }
  if (!same) throw std::runtime_error(what + " does not hold the checkpoint that was saved");
}

int run(const Options& options) {
  const fs::path parent = options.dir.empty() ? fs::temp_directory_path() : fs::path(options.dir);
  fs::create_directories(parent);
  std::string pattern = (parent / "fulgur-checkpoint-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder in " + parent.string());
  }
  const fs::path dir = pattern;
  // Removes only the folder this run made, whatever happens.
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};

  torch::manual_seed(0);
  int64_t parameters = 0;
  const auto checkpoint = make_checkpoint(options.mparams, &parameters);
  const std::string sync_path = (dir / "sync.ckpt").string();
  const std::string async_path = (dir / "async.ckpt").string();

  fulgur::TorchCheckpointIO sync_io;
  fulgur::AsyncCheckpointIO async_io;
  Series dd, sync_save, host_copy, copy_reused, async_blocked, async_total, load_warm, load_cold;
  Series serialise, parse;
  std::vector<torch::Tensor> buffers;
  for (const auto& entry : checkpoint.at("state_dict").toGenericDict()) {
    buffers.push_back(entry.value().toTensor().clone());
  }
  Series blocked_over_copy, blocked_over_reused, blocked_over_sync, sync_over_dd;
  double file_bytes = 0;

  for (int run = 0; run < options.runs; ++run) {
    auto start = Clock::now();
    sync_io.save_checkpoint(checkpoint, sync_path);
    sync_save.values.push_back(seconds_since(start));
    file_bytes = static_cast<double>(fs::file_size(sync_path));

    dd.values.push_back(dd_write_speed(dir, (static_cast<int64_t>(file_bytes) + kMiB - 1) / kMiB));

    host_copy.values.push_back(time_host_copy(checkpoint));

    // Where the time of a save and a load goes: serialisation and parsing, in memory only.
    {
      start = Clock::now();
      auto bytes = torch::pickle_save(c10::IValue(checkpoint));
      serialise.values.push_back(seconds_since(start));
      start = Clock::now();
      auto parsed = torch::pickle_load(bytes);
      parse.values.push_back(seconds_since(start));
    }

    // Right before the asynchronous save, so that both see the same state of memory.
    copy_reused.values.push_back(time_copy_into(checkpoint, buffers));
    start = Clock::now();
    async_io.save_checkpoint(checkpoint, async_path);
    async_blocked.values.push_back(seconds_since(start));
    async_io.wait();
    async_total.values.push_back(seconds_since(start));

    start = Clock::now();
    auto loaded = sync_io.load_checkpoint(sync_path);
    load_warm.values.push_back(seconds_since(start));
    if (run == 0) check_same(checkpoint, loaded, sync_path);
    loaded = fulgur::make_checkpoint_dict();  // free it before the next load

    drop_from_page_cache(async_path);
    start = Clock::now();
    loaded = sync_io.load_checkpoint(async_path);
    load_cold.values.push_back(seconds_since(start));
    if (run == 0) check_same(checkpoint, loaded, async_path);

    blocked_over_copy.values.push_back(async_blocked.values.back() / host_copy.values.back());
    blocked_over_reused.values.push_back(async_blocked.values.back() /
                                         copy_reused.values.back());
    blocked_over_sync.values.push_back(async_blocked.values.back() / sync_save.values.back());
    sync_over_dd.values.push_back(file_bytes / kMB / sync_save.values.back() / dd.values.back());
    std::cerr << fmt::format("run {}/{}: sync save {:.3f} s, async blocked {:.3f} s\n", run + 1,
                             options.runs, sync_save.values.back(), async_blocked.values.back());
  }
  async_io.teardown();

  std::cout << fmt::format(
      "Checkpoint of {} float32 parameters ({} tensors), file {:.1f} MB ({:.1f} MiB), in {}; "
      "LibTorch {}, {} intra-op threads, {} runs (median, min – max).\n\n",
      parameters, checkpoint.at("state_dict").toGenericDict().size(), file_bytes / kMB,
      file_bytes / kMiB, parent.string(), TORCH_VERSION, at::get_num_threads(), options.runs);
  std::cout << "| measure | median | min – max | throughput (median) |\n"
               "|---|---|---|---|\n";
  std::cout << fmt::format(
      "| disk: dd bs=1M conv=fdatasync | {:.0f} MB/s | {:.0f} – {:.0f} MB/s | |\n", dd.median(),
      dd.min(), dd.max());
  std::cout << seconds_row("sync save (TorchCheckpointIO)", sync_save, file_bytes);
  std::cout << seconds_row("serialise alone (torch::pickle_save into memory)", serialise,
                           file_bytes);
  std::cout << seconds_row("host copy alone (clone of every tensor)", host_copy, file_bytes);
  std::cout << seconds_row("copy into reused buffers (copy_, pages already touched)", copy_reused,
                           file_bytes);
  std::cout << seconds_row(
      "async save, blocked (until save_checkpoint returns; from run 2 on, the copy goes into "
      "the host buffers of the previous save)",
      async_blocked, file_bytes);
  std::cout << seconds_row("async save, total (until wait() returns)", async_total, file_bytes);
  std::cout << seconds_row("load, warm (file in the page cache)", load_warm, file_bytes);
  std::cout << seconds_row("load, cold (page cache dropped with fadvise)", load_cold, file_bytes);
  std::cout << seconds_row("parse alone (torch::pickle_load from memory)", parse, file_bytes);
  std::cout << ratio_row("ratio: async blocked / host copy", blocked_over_copy);
  std::cout << ratio_row("ratio: async blocked / copy into reused buffers", blocked_over_reused);
  std::cout << ratio_row("ratio: async blocked / sync save", blocked_over_sync);
  std::cout << ratio_row("ratio: sync save MB/s / dd MB/s", sync_over_dd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto options = parse(argc, argv);
    return options ? run(*options) : 0;
  } catch (const fulgur::ConfigError& e) {
    std::cerr << "checkpoint-bench: " << e.what() << '\n';
    usage(std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "checkpoint-bench: error: " << e.what() << '\n';
    return 1;
  }
}
