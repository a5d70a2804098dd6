#include "fulgur/plot/metrics_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

// Splits CSV text into records the way Python's csv module writes them (quotes around cells
// holding a comma, quote or newline; "" for a quote inside), counting lines for messages.
class CsvRecords {
 public:
  CsvRecords(std::string_view text, const std::string& source) : text_(text), source_(source) {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);  // a BOM from an editor
  }

  // The next record's cells, false at the end. Blank lines are skipped, as Python's
  // csv.DictReader does. line() is the line the record started on.
  bool next(std::vector<std::string>& cells) {
    cells.clear();
    while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    std::string cell;
    bool quoted = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (quoted) {
        if (c == '\n') ++line_;
        if (c != '"') {
          cell += c;
        } else if (pos_ < text_.size() && text_[pos_] == '"') {
          cell += '"';
          ++pos_;
        } else {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.push_back(std::move(cell));
        cell.clear();
      } else if (c == '\n') {
        ++line_;
        break;
      } else if (c != '\r') {
        cell += c;
      }
    }
    if (quoted) {
      throw DataError(fmt::format(
          "{}:{}: a quoted cell is not closed before the end of the file; the file is cut short "
          "or not a CSV",
          source_, record_line_));
    }
    cells.push_back(std::move(cell));
    return true;
  }

  int line() const { return record_line_; }

 private:
  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int line_ = 1;
  int record_line_ = 1;
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A cell as a number: what fmt and Python write, "nan" and "inf" included. std::from_chars
// ignores the locale (strtod would read "0,5" in a German one).
bool parse_number(std::string_view text, double& value) {
  text = trim(text);
  if (text.starts_with('+')) text.remove_prefix(1);
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

MetricsCsv MetricsCsv::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw DataError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw DataError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  return parse(text.str(), path);
}

MetricsCsv MetricsCsv::parse(std::string_view text, const std::string& source) {
  MetricsCsv table;
  table.source_ = source;
  CsvRecords records(text, source);
  std::vector<std::string> header;
  if (!records.next(header)) {
    throw DataError(fmt::format(
        "{} is empty; a metrics.csv starts with a header line naming its columns, `step` among "
        "them",
        source));
  }
  for (auto& name : header) name = std::string(trim(name));
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < header.size(); ++i) {
    if (!seen.emplace(header[i], i).second) {
      throw DataError(fmt::format("{}:{}: column \"{}\" appears twice in the header", source,
                                  records.line(), header[i]));
    }
  }
  const auto step_it = seen.find("step");
  if (step_it == seen.end()) {
    throw DataError(fmt::format(
        "{}:{}: no `step` column (the header has: {}); is this a CSVLogger metrics.csv?", source,
        records.line(), joined(header)));
  }
  const size_t step_column = step_it->second;
  const auto epoch_it = seen.find("epoch");
  table.has_epoch_ = epoch_it != seen.end();
  const size_t epoch_column = table.has_epoch_ ? epoch_it->second : header.size();

  // Where each column's values go: a metric's index, or none for step and epoch.
  std::vector<size_t> metric_of(header.size(), header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    if (i == step_column || i == epoch_column) continue;
    metric_of[i] = table.keys_.size();
    table.keys_.push_back(header[i]);
  }
  table.metrics_.resize(table.keys_.size());

  std::vector<std::string> cells;
  while (records.next(cells)) {
    if (cells.size() != header.size()) {
      throw DataError(fmt::format("{}:{}: {} cell{}, but the header has {} columns", source,
                                  records.line(), cells.size(), cells.size() == 1 ? "" : "s",
                                  header.size()));
    }
    const auto number = [&](size_t column) {
      double value = 0;
      if (!parse_number(cells[column], value)) {
        throw DataError(fmt::format("{}:{}: column \"{}\": \"{}\" is not a number", source,
                                    records.line(), header[column], cells[column]));
      }
      return value;
    };
    if (trim(cells[step_column]).empty()) {
      throw DataError(fmt::format("{}:{}: the `step` cell is empty; every row needs a step", source,
                                  records.line()));
    }
    const double step = number(step_column);
    if (!std::isfinite(step)) {
      throw DataError(fmt::format("{}:{}: the step is \"{}\"; steps are whole numbers", source,
                                  records.line(), cells[step_column]));
    }
    table.steps_.push_back(step);
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i == step_column || trim(cells[i]).empty()) continue;
      MetricPoints& points = i == epoch_column ? table.epoch_ : table.metrics_[metric_of[i]];
      points.steps.push_back(step);
      points.values.push_back(number(i));
    }
  }
  return table;
}

const MetricPoints* MetricsCsv::find(const std::string& key) const {
  const auto it = std::find(keys_.begin(), keys_.end(), key);
  return it == keys_.end() ? nullptr : &metrics_[static_cast<size_t>(it - keys_.begin())];
}

}  // namespace fulgur
