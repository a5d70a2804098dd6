#include "fulgur/plot/line_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "fulgur/errors.h"
#include "fulgur/plot/atomic_file.h"
#include "fulgur/plot/axis_ticks.h"
#include "fulgur/plot/xml_text.h"

namespace fulgur {
namespace {

using plot::xml_escape;

constexpr int kMinWidth = 240, kMinHeight = 160, kMaxSize = 20000;
constexpr double kCharWidth = 7;  // a sans-serif character at 12 px, on average (for layout)
constexpr double kMinLeft = 64;   // room for most tick labels: stacked charts line up
constexpr double kRight = 24;     // room for half of the last x tick label
constexpr double kLegendRow = 18;
constexpr double kLegendSwatch = 22;
constexpr double kLegendGap = 18;
constexpr double kMoreWidth = 70;  // "+NNN more"
// Beyond this the axis arithmetic (ranges, steps) could overflow a double.
constexpr double kLargest = 1e300;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Tableau 10: distinct for most colour-blind readers and on white.
constexpr std::array<const char*, 10> kColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                  "#bcbd22", "#17becf"};
// Once the colours repeat, the dash pattern tells series apart.
constexpr std::array<const char*, 4> kDashes = {"", "7 3", "2 3", "9 3 2 3"};

const char* colour_of(size_t series) { return kColours[series % kColours.size()]; }
const char* dash_of(size_t series) { return kDashes[(series / kColours.size()) % kDashes.size()]; }

bool drawable(double v, bool log) {
  return std::isfinite(v) && std::fabs(v) <= kLargest && (!log || v >= 1 / kLargest);
}

// Coordinates with two decimals: sharp enough for any screen, short enough for
// big series.
std::string px(double v) { return fmt::format("{:.2f}", v); }

double text_width(const std::string& text) {
  const auto chars = std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a UTF-8 continuation byte
  });
  return static_cast<double>(chars) * kCharWidth;
}

struct Range {
  double min = kInf, max = -kInf;
  void add(double v) { min = std::min(min, v), max = std::max(max, v); }
  bool empty() const { return min > max; }
};

plot::AxisTicks make_ticks(bool log, Range range, int target) {
  if (range.empty()) range = log ? Range{1, 10} : Range{0, 1};  // nothing to draw: bare axes
  return log ? plot::log_ticks(range.min, range.max)
             : plot::linear_ticks(range.min, range.max, target);
}

// Maps data values onto pixels along one axis.
struct Scale {
  plot::AxisTicks ticks;
  bool log;
  double from, to;  // pixel positions of ticks.lo and ticks.hi

  double operator()(double v) const {
    const double lo = log ? std::log10(ticks.lo) : ticks.lo;
    const double hi = log ? std::log10(ticks.hi) : ticks.hi;
    const double t = ((log ? std::log10(v) : v) - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

struct LegendItem {
  size_t series;
  int row;
  double x, y;  // the swatch's left end, on the row's middle line
  std::string text;
};

struct Legend {
  std::vector<LegendItem> items;
  size_t hidden = 0;  // series that did not fit: "+N more" at (more_x, more_y)
  double more_x = 0, more_y = 0;
  int rows = 0;
};

// Entries left to right across [x0, x1], wrapping, in at most `max_rows` rows;
// when some do not fit, the last row ends in "+N more".
Legend layout_legend(const std::vector<std::string>& texts, double x0, double x1, double top,
                     int max_rows) {
  Legend legend;
  if (texts.empty()) return legend;
  const auto max_chars =
      static_cast<size_t>(std::max(4.0, (x1 - x0 - kLegendSwatch - 6 - kMoreWidth) / kCharWidth));
  const auto row_y = [&](int row) { return top + kLegendRow * row + kLegendRow / 2; };
  double x = x0;
  int row = 0;
  for (size_t k = 0; k < texts.size(); ++k) {
    std::string text = plot::truncate_utf8(texts[k], max_chars);
    const double w = kLegendSwatch + 6 + text_width(text);
    if (x > x0 && x + w > x1) ++row, x = x0;
    if (row == max_rows) break;
    legend.items.push_back({k, row, x, row_y(row), std::move(text)});
    x += w + kLegendGap;
  }
  legend.rows = std::min(row + 1, max_rows);
  if (legend.items.size() == texts.size()) return legend;
  // Make room for "+N more" at the end of the last row.
  const auto right_end = [](const LegendItem& item) {
    return item.x + kLegendSwatch + 6 + text_width(item.text) + kLegendGap;
  };
  const auto on_last_row = [&] {
    return !legend.items.empty() && legend.items.back().row == max_rows - 1;
  };
  while (on_last_row() && right_end(legend.items.back()) + kMoreWidth > x1) {
    legend.items.pop_back();
  }
  legend.hidden = texts.size() - legend.items.size();
  legend.more_x = on_last_row() ? right_end(legend.items.back()) : x0;
  legend.more_y = row_y(max_rows - 1);
  return legend;
}

// The plot area's edges in pixels.
struct Frame {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
};

template <typename... Parts>
void append(std::string& out, const Parts&... parts) {
  (out.append(parts), ...);
}

// Grid lines, the frame and the tick labels.
void append_axes(std::string& out, const Frame& f, const Scale& sx, const Scale& sy) {
  append(out, "<g class=\"grid\" stroke=\"#e5e5e5\" stroke-width=\"1\">\n");
  for (double v : sx.ticks.values) {
    append(out, "<line x1=\"", px(sx(v)), "\" y1=\"", px(f.y0), "\" x2=\"", px(sx(v)), "\" y2=\"",
           px(f.y1), "\"/>\n");
  }
  for (double v : sy.ticks.values) {
    append(out, "<line x1=\"", px(f.x0), "\" y1=\"", px(sy(v)), "\" x2=\"", px(f.x1), "\" y2=\"",
           px(sy(v)), "\"/>\n");
  }
  append(out, "</g>\n<rect class=\"frame\" x=\"", px(f.x0), "\" y=\"", px(f.y0), "\" width=\"",
         px(f.x1 - f.x0), "\" height=\"", px(f.y1 - f.y0), "\" fill=\"none\" stroke=\"#555\"/>\n");
  for (size_t i = 0; i < sx.ticks.values.size(); ++i) {
    append(out, "<text class=\"x-tick\" x=\"", px(sx(sx.ticks.values[i])), "\" y=\"", px(f.y1 + 16),
           "\" text-anchor=\"middle\">", xml_escape(sx.ticks.labels[i]), "</text>\n");
  }
  for (size_t i = 0; i < sy.ticks.values.size(); ++i) {
    append(out, "<text class=\"y-tick\" x=\"", px(f.x0 - 6), "\" y=\"",
           px(sy(sy.ticks.values[i]) + 4), "\" text-anchor=\"end\">",
           xml_escape(sy.ticks.labels[i]), "</text>\n");
  }
}

// Series number k: a polyline per run of drawable points, a dot for a point
// alone between gaps.
void append_series(std::string& out, size_t k, const std::string& name,
                   const std::vector<double>& xs, const std::vector<double>& ys, const Scale& sx,
                   const Scale& sy) {
  const std::string escaped = xml_escape(name);
  std::vector<std::pair<double, double>> run;
  auto flush = [&] {
    if (run.size() == 1) {
      append(out, "<circle class=\"series\" data-series=\"", escaped, "\" cx=\"", px(run[0].first),
             "\" cy=\"", px(run[0].second), "\" r=\"2.5\" fill=\"", colour_of(k), "\"/>\n");
    } else if (run.size() > 1) {
      append(out, "<polyline class=\"series\" data-series=\"", escaped,
             "\" fill=\"none\" stroke=\"", colour_of(k),
             "\" stroke-width=\"1.6\" stroke-linejoin=\"round\"");
      if (*dash_of(k)) append(out, " stroke-dasharray=\"", dash_of(k), "\"");
      append(out, " points=\"");
      for (size_t i = 0; i < run.size(); ++i) {
        append(out, i ? " " : "", px(run[i].first), ",", px(run[i].second));
      }
      append(out, "\"/>\n");
    }
    run.clear();
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    if (drawable(xs[i], sx.log) && drawable(ys[i], sy.log)) {
      run.emplace_back(sx(xs[i]), sy(ys[i]));
    } else {
      flush();
    }
  }
  flush();
}

// A dashed vertical line at pixel x, labelled; data-x keeps the value for
// scripts.
void append_marker(std::string& out, const Frame& f, double x, double value,
                   const std::string& label) {
  append(out, "<g class=\"marker\" data-x=\"", fmt::format("{}", value), "\">\n<line x1=\"", px(x),
         "\" y1=\"", px(f.y0), "\" x2=\"", px(x), "\" y2=\"", px(f.y1),
         "\" stroke=\"#333\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\"/>\n");
  // The label sits right of the line unless that would leave the plot.
  const bool fits_right = x + 6 + text_width(label) <= f.x1;
  append(out, "<text x=\"", px(fits_right ? x + 5 : x - 5), "\" y=\"", px(f.y0 + 14),
         "\" text-anchor=\"", fits_right ? "start" : "end", "\" fill=\"#333\">", xml_escape(label),
         "</text>\n</g>\n");
}

void append_legend(std::string& out, const Legend& legend, const std::vector<std::string>& texts,
                   const std::vector<bool>& has_data) {
  for (const LegendItem& item : legend.items) {
    const size_t k = item.series;
    // The full text as a tooltip: the visible one may be shortened.
    append(out, "<g class=\"legend-entry\">\n<title>", xml_escape(texts[k]), "</title>\n");
    append(out, "<line x1=\"", px(item.x), "\" y1=\"", px(item.y), "\" x2=\"",
           px(item.x + kLegendSwatch), "\" y2=\"", px(item.y), "\" stroke=\"", colour_of(k),
           "\" stroke-width=\"2\"");
    if (*dash_of(k)) append(out, " stroke-dasharray=\"", dash_of(k), "\"");
    if (!has_data[k]) append(out, " stroke-opacity=\"0.35\"");
    append(out, "/>\n<text x=\"", px(item.x + kLegendSwatch + 6), "\" y=\"", px(item.y + 4), "\">",
           xml_escape(item.text), "</text>\n</g>\n");
  }
  if (legend.hidden > 0) {
    append(out, "<text class=\"legend-more\" x=\"", px(legend.more_x), "\" y=\"",
           px(legend.more_y + 4), "\">", fmt::format("+{} more", legend.hidden), "</text>\n");
  }
}

}  // namespace

LineChart::LineChart(LineChartOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  if (o.width < kMinWidth || o.height < kMinHeight || o.width > kMaxSize || o.height > kMaxSize) {
    throw ConfigError(
        fmt::format("LineChart(width={}, height={}): the size "
                    "must be between {} × {} and {} × {} pixels",
                    o.width, o.height, kMinWidth, kMinHeight, kMaxSize, kMaxSize));
  }
}

void LineChart::add_series(std::string name, std::vector<double> xs, std::vector<double> ys) {
  if (xs.size() != ys.size()) {
    throw ConfigError(
        fmt::format("LineChart::add_series(\"{}\"): {} x values "
                    "but {} y values; give one x per y",
                    name, xs.size(), ys.size()));
  }
  series_.push_back({std::move(name), std::move(xs), std::move(ys)});
}

void LineChart::set_marker(double x, std::string label) {
  if (!drawable(x, options_.log_x)) {
    throw ConfigError(fmt::format("LineChart::set_marker({}, \"{}\"): the x axis cannot show {}{}",
                                  x, label, x, options_.log_x ? " (a log axis needs x > 0)" : ""));
  }
  markers_.assign(1, {x, std::move(label)});
}

std::string LineChart::svg_elements() const {
  const bool log_x = options_.log_x, log_y = options_.log_y;
  const double width = options_.width, height = options_.height;

  // Data ranges over what will be drawn: points, the marker, the x range asked
  // for.
  Range xr, yr;
  std::vector<std::string> legend_texts;
  std::vector<bool> has_data;
  for (const Series& s : series_) {
    bool any = false;
    for (size_t i = 0; i < s.xs.size(); ++i) {
      if (!drawable(s.xs[i], log_x) || !drawable(s.ys[i], log_y)) continue;
      any = true;
      xr.add(s.xs[i]);
      yr.add(s.ys[i]);
    }
    has_data.push_back(any);
    legend_texts.push_back(s.name + (any ? "" : " (no data)"));
  }
  for (const Marker& m : markers_) xr.add(m.x);
  for (const auto& bound : {options_.x_min, options_.x_max}) {
    if (bound && drawable(*bound, log_x)) xr.add(*bound);
  }

  // Layout: title, legend rows, plot; y tick labels and the y label to the
  // left, x tick labels and the x label below. The y ticks depend on the plot's
  // height, which the legend decides, which wraps within the plot's width,
  // which the y tick labels decide: measure the labels for the height without a
  // legend first (fewer ticks later only shorten them).
  const double title_height = options_.title.empty() ? 10 : 32;
  const double bottom = 26 + (options_.x_label.empty() ? 0 : 20);
  const auto y_target = [](double plot_height) {
    return std::clamp(static_cast<int>(plot_height / 45), 2, 8);
  };
  double label_width = 0;
  for (const auto& label : make_ticks(log_y, yr, y_target(height - title_height - bottom)).labels) {
    label_width = std::max(label_width, text_width(label));
  }
  Frame f;
  f.x0 = std::clamp(12 + label_width, kMinLeft, width / 4) + (options_.y_label.empty() ? 0 : 22);
  f.x1 = width - kRight;
  const int max_rows = std::max(1, static_cast<int>(height / 4 / kLegendRow));
  const Legend legend = layout_legend(legend_texts, f.x0, f.x1, title_height, max_rows);
  f.y0 = title_height + kLegendRow * legend.rows + 8;
  f.y1 = height - bottom;
  const Scale sx{make_ticks(log_x, xr, std::clamp(static_cast<int>((f.x1 - f.x0) / 90), 2, 10)),
                 log_x, f.x0, f.x1};
  const Scale sy{make_ticks(log_y, yr, y_target(f.y1 - f.y0)), log_y, f.y1, f.y0};

  std::string out = fmt::format(
      "<rect class=\"background\" width=\"{}\" "
      "height=\"{}\" fill=\"white\"/>\n",
      options_.width, options_.height);
  if (!options_.title.empty()) {
    append(out, "<text class=\"title\" x=\"", px(width / 2), "\" y=\"22\" text-anchor=\"middle\" ",
           "font-size=\"15\" font-weight=\"bold\">", xml_escape(options_.title), "</text>\n");
  }
  append_axes(out, f, sx, sy);
  if (!options_.x_label.empty()) {
    append(out, "<text class=\"x-label\" x=\"", px((f.x0 + f.x1) / 2), "\" y=\"", px(height - 8),
           "\" text-anchor=\"middle\">", xml_escape(options_.x_label), "</text>\n");
  }
  if (!options_.y_label.empty()) {
    const std::string cy = px((f.y0 + f.y1) / 2);
    append(out, "<text class=\"y-label\" x=\"14\" y=\"", cy, "\" text-anchor=\"middle\" ",
           "transform=\"rotate(-90 14 ", cy, ")\">", xml_escape(options_.y_label), "</text>\n");
  }
  for (size_t k = 0; k < series_.size(); ++k) {
    append_series(out, k, series_[k].name, series_[k].xs, series_[k].ys, sx, sy);
  }
  if (std::find(has_data.begin(), has_data.end(), true) == has_data.end()) {
    append(out, "<text class=\"no-data\" x=\"", px((f.x0 + f.x1) / 2), "\" y=\"",
           px((f.y0 + f.y1) / 2), "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n");
  }
  for (const Marker& m : markers_) append_marker(out, f, sx(m.x), m.x, m.label);
  append_legend(out, legend, legend_texts, has_data);
  return out;
}

std::string LineChart::to_svg() const {
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      options_.width, options_.height);
  if (!options_.title.empty()) svg += "<title>" + xml_escape(options_.title) + "</title>\n";
  svg += svg_elements();
  svg += "</svg>\n";
  return svg;
}

void LineChart::save(const std::string& path) const { plot::write_file_atomically(path, to_svg()); }

}  // namespace fulgur
