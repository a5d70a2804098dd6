#pragma once
// MetricsCsv: a metrics.csv as CSVLogger (or Lightning's CSVLogger) writes it, read back as
// columns: a header naming the columns, one of them `step`; one row per log call; empty cells
// where a row has no value for a column; an `epoch` column when epochs were logged. Each
// metric becomes its (step, value) points in file order, empty cells skipped ("nan" and
// "inf" cells are kept: they are values, and a chart shows them as gaps).
// Anything else (no file, no header, no `step` column, a row with too few or too many cells,
// a cell that is not a number, an empty step) is a DataError naming the file and the line.
#include <string>
#include <string_view>
#include <vector>

namespace fulgur {

struct MetricPoints {
  std::vector<double> steps;
  std::vector<double> values;
};

class MetricsCsv {
 public:
  // Raises DataError when the file cannot be read or is not a metrics table.
  static MetricsCsv read(const std::string& path);
  // The same from text already in memory; `source` names it in error messages.
  static MetricsCsv parse(std::string_view text, const std::string& source);

  const std::string& source() const { return source_; }
  size_t rows() const { return steps_.size(); }
  // Every row's step, in file order.
  const std::vector<double>& steps() const { return steps_; }
  bool has_epoch() const { return has_epoch_; }
  // (step, epoch) of the rows that have one; empty without an `epoch` column.
  const MetricPoints& epoch() const { return epoch_; }
  // The metric columns (all but `step` and `epoch`) in header order.
  const std::vector<std::string>& keys() const { return keys_; }
  // nullptr when there is no such metric column.
  const MetricPoints* find(const std::string& key) const;

 private:
  std::string source_;
  std::vector<double> steps_;
  bool has_epoch_ = false;
  MetricPoints epoch_;
  std::vector<std::string> keys_;
  std::vector<MetricPoints> metrics_;  // parallel to keys_
};

}  // namespace fulgur
