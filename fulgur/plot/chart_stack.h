#pragma once
// ChartStack: several LineCharts one above the other in one SVG document, each placed with a
// <g class="panel" transform="translate(0 y)">, under an optional title. The document is as
// wide as the widest chart; narrower ones sit at its left edge. An empty stack still renders
// a valid document saying "no charts".
#include <string>
#include <vector>

#include "fulgur/plot/line_chart.h"

namespace fulgur {

struct ChartStackOptions {
  std::string title;
};

class ChartStack {
 public:
  explicit ChartStack(ChartStackOptions options = {});

  void add(LineChart chart);
  size_t size() const { return charts_.size(); }
  int width() const;
  int height() const;

  std::string to_svg() const;
  // to_svg() written atomically (see atomic_file.h); raises Error when it cannot be.
  void save(const std::string& path) const;

 private:
  int title_height() const;

  ChartStackOptions options_;
  std::vector<LineChart> charts_;
};

}  // namespace fulgur
