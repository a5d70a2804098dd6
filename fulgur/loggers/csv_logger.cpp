#include "fulgur/loggers/csv_logger.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "fulgur/errors.h"
#include "fulgur/loggers/file_writes.h"
#include "fulgur/loggers/hparams_yaml.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMetricsFile = "metrics.csv";
constexpr const char* kHParamsFile = "hparams.yaml";
constexpr const char* kOwner = "CSVLogger";

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

}  // namespace

CSVLogger::CSVLogger(CSVLoggerOptions options)
    : options_(std::move(options)),
      dir_(kOwner, options_.save_dir, options_.name, options_.version) {
  if (options_.flush_logs_every_n_steps < 1) {
    throw ConfigError(fmt::format(
        "CSVLogger(flush_logs_every_n_steps={}): must be at least 1 (1 writes every call)",
        options_.flush_logs_every_n_steps));
  }
}

CSVLogger::~CSVLogger() {
  // A logger that never wrote leaves no directory behind.
  if (!dir_.created()) return;
  try {
    save();
  } catch (const std::exception& e) {
    // A destructor cannot throw; losing metrics silently would be worse than a line on stderr.
    std::cerr << "fulgur: " << e.what() << '\n';
  }
}

void CSVLogger::log_metrics(const std::map<std::string, double>& metrics, int64_t step) {
  dir_.create();
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
  dir_.create();
  for (const auto& [key, value] : params) hparams_.insert_or_assign(key, value);
  write_hparams();
}

void CSVLogger::finalize(const std::string& /*status*/) {
  // As Lightning: finalizing a logger that was never used creates nothing.
  if (dir_.created()) save();
}

void CSVLogger::save() {
  dir_.create();
  // Lightning's version directories always hold an hparams.yaml, "{}" when nothing was logged.
  if (!hparams_written_) write_hparams();
  write_metrics();
}

void CSVLogger::write_hparams() {
  write_hparams_yaml(fs::path(log_dir()) / kHParamsFile, hparams_, kOwner);
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
    append_to_file(path, text, kOwner);
  } else {
    // New keys (or this logger's first write, which replaces any metrics.csv a previous run
    // left in this version directory, as Lightning does): a new file with the wider header.
    FileReplacement file(path, kOwner);
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
