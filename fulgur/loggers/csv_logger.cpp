#include "fulgur/loggers/csv_logger.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMetricsFile = "metrics.csv";
constexpr const char* kHParamsFile = "hparams.yaml";
constexpr std::string_view kVersionPrefix = "version_";

[[noreturn]] void throw_io_error(const fs::path& path, const char* what) {
  throw Error(fmt::format(
      "CSVLogger could not {} {}: {}; check that save_dir is writable and the disk has space", what,
      path.string(), std::strerror(errno)));
}

// Writes a whole file next to its destination and renames it into place, so readers and
// crashes see either the old file or the new one, never half of one.
class FileReplacement {
 public:
  explicit FileReplacement(fs::path path) : path_(std::move(path)), tmp_(path_) {
    tmp_ += ".tmp";
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (!file_) throw_io_error(tmp_, "create");
  }
  FileReplacement(const FileReplacement&) = delete;
  FileReplacement& operator=(const FileReplacement&) = delete;
  ~FileReplacement() {
    if (file_) {
      std::fclose(file_);
      std::error_code ignored;
      fs::remove(tmp_, ignored);
    }
  }

  void write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
      throw_io_error(tmp_, "write");
  }

  void commit() {
    if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) throw_io_error(tmp_, "write");
    std::FILE* file = file_;
    file_ = nullptr;
    if (std::fclose(file) != 0) throw_io_error(tmp_, "write");
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) throw_io_error(path_, "replace");
  }

 private:
  fs::path path_;
  fs::path tmp_;
  std::FILE* file_ = nullptr;
};

// One write(2) of complete rows: a killed process cannot leave half of it in a regular file.
void append_to_file(const fs::path& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw_io_error(path, "open");
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      throw_io_error(path, "append to");
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  if (::close(fd) != 0) throw_io_error(path, "append to");
}

// Minimal quoting, as Python's csv module writes it.
void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_csv_line(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    append_csv_field(out, fields[i]);
  }
  out += '\n';
}

// Reads one record (which may span lines inside quotes); false at end of input.
bool read_csv_record(std::istream& in, std::vector<std::string>& fields) {
  fields.clear();
  if (in.peek() == std::char_traits<char>::eof()) return false;
  std::string field;
  bool quoted = false;
  char c;
  while (in.get(c)) {
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (in.peek() == '"') {
        in.get(c);
        field += '"';
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return true;
}

// Python's float repr made YAML 1.1 floats, as PyYAML writes them: "1.0" not "1",
// "1.0e-05" not "1e-05" (PyYAML would read the latter back as a string).
std::string yaml_double(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = fmt::format("{}", value);
  if (text.find('.') == std::string::npos) {
    size_t e = text.find('e');
    if (e == std::string::npos)
      text += ".0";
    else
      text.insert(e, ".0");
  }
  return text;
}

// A string YAML would read back as a string when written plain; anything else is quoted, so
// "true", "1e3", "" or "a: b" stay strings in yaml-cpp and PyYAML alike.
bool is_plain_string(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
    if (!ok) return false;
  }
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == word) return false;
  }
  return true;
}

void emit_string(YAML::Emitter& out, const std::string& text) {
  if (is_plain_string(text))
    out << text;
  else
    out << YAML::DoubleQuoted << text;
}

std::string to_yaml(const HParams& params) {
  if (params.empty()) return "{}\n";
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& [key, value] : params) {
    out << YAML::Key;
    emit_string(out, key);
    out << YAML::Value;
    std::visit(
        [&out](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, bool>)
            out << (v ? "true" : "false");
          else if constexpr (std::is_same_v<V, int64_t>)
            out << fmt::format("{}", v);
          else if constexpr (std::is_same_v<V, double>)
            out << yaml_double(v);
          else
            emit_string(out, v);
        },
        value);
  }
  out << YAML::EndMap;
  if (!out.good())
    throw Error(fmt::format("CSVLogger could not write hparams.yaml: {}", out.GetLastError()));
  return std::string(out.c_str()) + "\n";
}

}  // namespace

CSVLogger::CSVLogger(CSVLoggerOptions options) : options_(std::move(options)) {
  if (options_.version && *options_.version < 0) {
    throw ConfigError(fmt::format(
        "CSVLogger(version={}): version must be >= 0, or left unset to take the next free one",
        *options_.version));
  }
  if (options_.flush_logs_every_n_steps < 1) {
    throw ConfigError(fmt::format(
        "CSVLogger(flush_logs_every_n_steps={}): must be at least 1 (1 writes every call)",
        options_.flush_logs_every_n_steps));
  }
}

CSVLogger::~CSVLogger() {
  // A logger that never wrote leaves no directory behind.
  if (!log_dir_created_) return;
  try {
    save();
  } catch (const std::exception& e) {
    // A destructor cannot throw; losing metrics silently would be worse than a line on stderr.
    std::cerr << "fulgur: " << e.what() << '\n';
  }
}

int CSVLogger::resolve_version() const {
  if (options_.version) return *options_.version;
  std::error_code ec;
  fs::path root = fs::path(options_.save_dir) / options_.name;
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

std::string CSVLogger::version() const {
  if (!version_) version_ = resolve_version();
  return fmt::format("{}{}", kVersionPrefix, *version_);
}

std::string CSVLogger::log_dir() const {
  return (fs::path(options_.save_dir) / options_.name / version()).string();
}

void CSVLogger::ensure_log_dir() {
  if (log_dir_created_) return;
  std::error_code ec;
  fs::path dir = log_dir();
  fs::create_directories(dir, ec);
  if (ec) {
    throw ConfigError(fmt::format(
        "CSVLogger could not create its log directory {}: {}; choose a writable save_dir",
        dir.string(), ec.message()));
  }
  log_dir_created_ = true;
}

void CSVLogger::log_metrics(const std::map<std::string, double>& metrics, int64_t step) {
  ensure_log_dir();
  Row row{step, {}};
  for (const auto& [key, value] : metrics) {
    std::string column = options_.prefix.empty() ? key : options_.prefix + "-" + key;
    // The step argument owns the "step" column, as in Lightning.
    if (column == "step") continue;
    columns_.insert(column);
    row.values.emplace(std::move(column), value);
  }
  columns_.insert("step");
  rows_.push_back(std::move(row));
  if (++log_calls_ % options_.flush_logs_every_n_steps == 0) save();
}

void CSVLogger::log_hyperparams(const HParams& params) {
  ensure_log_dir();
  for (const auto& [key, value] : params) hparams_.insert_or_assign(key, value);
  write_hparams();
}

void CSVLogger::finalize(const std::string& /*status*/) {
  // As Lightning: finalizing a logger that was never used creates nothing.
  if (log_dir_created_) save();
}

void CSVLogger::save() {
  ensure_log_dir();
  // Lightning's version directories always hold an hparams.yaml, "{}" when nothing was logged.
  if (!hparams_written_) write_hparams();
  write_metrics();
}

void CSVLogger::write_hparams() {
  FileReplacement file(fs::path(log_dir()) / kHParamsFile);
  file.write(to_yaml(hparams_));
  file.commit();
  hparams_written_ = true;
}

void CSVLogger::write_metrics() {
  if (rows_.empty()) return;
  const fs::path path = fs::path(log_dir()) / kMetricsFile;
  std::vector<std::string> columns(columns_.begin(), columns_.end());

  std::string text;
  std::vector<std::string> fields(columns.size());
  for (const Row& row : rows_) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == "step") {
        fields[i] = fmt::format("{}", row.step);
      } else {
        auto it = row.values.find(columns[i]);
        fields[i] = it == row.values.end() ? std::string() : fmt::format("{}", it->second);
      }
    }
    append_csv_line(text, fields);
  }

  if (columns == file_columns_) {
    append_to_file(path, text);
  } else {
    // New keys (or this logger's first write, which replaces any metrics.csv a previous run
    // left in this version directory, as Lightning does): a new file with the wider header.
    FileReplacement file(path);
    std::string header;
    append_csv_line(header, columns);
    file.write(header);
    if (!file_columns_.empty()) {
      std::ifstream old(path, std::ios::binary);
      std::vector<std::string> old_header;
      if (old && read_csv_record(old, old_header)) {
        std::vector<size_t> target(old_header.size());
        for (size_t i = 0; i < old_header.size(); ++i) {
          auto it = std::lower_bound(columns.begin(), columns.end(), old_header[i]);
          target[i] = it != columns.end() && *it == old_header[i]
                          ? static_cast<size_t>(it - columns.begin())
                          : columns.size();  // not ours: dropped
        }
        std::vector<std::string> record;
        std::vector<std::string> remapped(columns.size());
        std::string line;
        while (read_csv_record(old, record)) {
          std::fill(remapped.begin(), remapped.end(), std::string());
          for (size_t i = 0; i < record.size() && i < target.size(); ++i) {
            if (target[i] < columns.size()) remapped[target[i]] = std::move(record[i]);
          }
          line.clear();
          append_csv_line(line, remapped);
          file.write(line);
        }
      }
    }
    file.write(text);
    file.commit();
    file_columns_ = std::move(columns);
  }
  rows_.clear();
}

}  // namespace fulgur
