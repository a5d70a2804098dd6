#pragma once
// LineChart: named series of (x, y) points drawn as lines on one pair of axes, rendered to a
// self-contained SVG (no scripts, fonts or stylesheets to fetch), for a person to open in a
// browser. What it guarantees:
// - Axes span every drawn point, the marker and the x range asked for; ticks step by 1, 2 or
//   5 × 10^k, or by decades on a log axis. The plot area starts 64 px from the left (more
//   only for long tick labels) and ends 24 px from the right, so stacked charts line up.
// - A point that cannot be drawn (NaN, ±inf, beyond ±1e300, or <= 0 on a log axis) is
//   skipped and leaves a gap: the line stops before it and starts again after it. A point with
//   no drawable neighbour is drawn as a dot.
// - Every series is in the legend above the plot, in the order added, with its own colour
//   (then dash pattern once the colours run out); one with nothing to draw is listed as
//   "<name> (no data)". Legend rows are capped at a quarter of the height; what does not fit
//   is counted as "+N more".
// - All text is escaped; the output is well-formed XML whatever the names hold.
// Elements carry classes (series, legend-entry, marker, x-tick, y-tick) and each series'
// lines and dots carry data-series="<name>", so tests and scripts can read the chart back.
#include <optional>
#include <string>
#include <vector>

namespace fulgur {

struct LineChartOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  int width = 800;  // pixels, at least 240 × 160
  int height = 360;
  // The x axis covers at least [x_min, x_max] (charts stacked over the same steps line up);
  // a bound the axis cannot show is ignored.
  std::optional<double> x_min;
  std::optional<double> x_max;
};

class LineChart {
 public:
  // Raises ConfigError for a size below 240 × 160 or above 20000 × 20000.
  explicit LineChart(LineChartOptions options = {});

  // Raises ConfigError when xs and ys differ in length.
  void add_series(std::string name, std::vector<double> xs, std::vector<double> ys);
  // A vertical line at x, labelled (the learning-rate finder's suggestion). Raises ConfigError
  // for an x the x axis cannot show. A second call replaces the first.
  void set_marker(double x, std::string label);

  // The whole SVG document.
  std::string to_svg() const;
  // The chart's elements alone, drawn in (0, 0)-(width, height), for placing several charts in
  // one document (ChartStack). They use no ids, so copies never clash.
  std::string svg_elements() const;
  // to_svg() written atomically (see atomic_file.h); raises Error when it cannot be.
  void save(const std::string& path) const;

  const LineChartOptions& options() const { return options_; }

 private:
  struct Series {
    std::string name;
    std::vector<double> xs;
    std::vector<double> ys;
  };
  struct Marker {
    double x;
    std::string label;
  };

  LineChartOptions options_;
  std::vector<Series> series_;
  std::vector<Marker> markers_;  // zero or one
};

}  // namespace fulgur
