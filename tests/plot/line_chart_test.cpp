#include "fulgur/plot/line_chart.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "plot/svg_reader.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using testing::polyline_points;
using testing::XmlElement;
using testing::XmlReader;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

XmlElement parse(const LineChart& chart) { return XmlReader::parse(chart.to_svg()); }

std::vector<std::string> texts(const std::vector<const XmlElement*>& elements) {
  std::vector<std::string> out;
  for (const auto* e : elements) out.push_back(e->text);
  return out;
}

// The legend's texts, in order.
std::vector<std::string> legend(const XmlElement& svg) {
  std::vector<std::string> out;
  for (const auto* entry : svg.with_class("legend-entry"))
    out.push_back(entry->child("text")->text);
  return out;
}

std::vector<const XmlElement*> series_elements(const XmlElement& svg, const std::string& name,
                                               const std::string& tag) {
  return svg.find_all([&](const XmlElement& e) {
    return e.name == tag && e.attribute("class") == "series" && e.attribute("data-series") == name;
  });
}

// Pixel position of a data value along an axis, from the first and last tick marks' labels
// (the ticks are the axis's ends), linear or log.
struct AxisMap {
  double v0, v1, p0, p1;
  bool log;
  double operator()(double v) const {
    const auto t = [&](double x) { return log ? std::log10(x) : x; };
    return p0 + (t(v) - t(v0)) / (t(v1) - t(v0)) * (p1 - p0);
  }
};

AxisMap x_axis(const XmlElement& svg, bool log = false) {
  const auto ticks = svg.with_class("x-tick");
  return {std::stod(ticks.front()->text), std::stod(ticks.back()->text),
          std::stod(ticks.front()->attribute("x")), std::stod(ticks.back()->attribute("x")), log};
}

AxisMap y_axis(const XmlElement& svg, bool log = false) {
  const auto ticks = svg.with_class("y-tick");
  // Labels sit 4 px below their grid line (vertically centred on it).
  return {std::stod(ticks.front()->text), std::stod(ticks.back()->text),
          std::stod(ticks.front()->attribute("y")) - 4, std::stod(ticks.back()->attribute("y")) - 4,
          log};
}

TEST(LineChart, DocumentStructure) {
  LineChart chart({.title = "Training", .x_label = "step", .y_label = "loss"});
  chart.add_series("train_loss", {0, 1, 2, 3}, {2.0, 1.5, 1.2, 1.0});
  chart.add_series("val_loss", {1, 3}, {1.7, 1.3});
  const XmlElement svg = parse(chart);

  EXPECT_EQ(svg.name, "svg");
  EXPECT_EQ(svg.attribute("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(svg.attribute("width"), "800");
  EXPECT_EQ(svg.attribute("height"), "360");
  EXPECT_EQ(svg.attribute("viewBox"), "0 0 800 360");
  ASSERT_NE(svg.child("title"), nullptr);
  EXPECT_EQ(svg.child("title")->text, "Training");
  EXPECT_EQ(texts(svg.with_class("title")), std::vector<std::string>{"Training"});
  EXPECT_EQ(texts(svg.with_class("x-label")), std::vector<std::string>{"step"});
  EXPECT_EQ(texts(svg.with_class("y-label")), std::vector<std::string>{"loss"});
  EXPECT_EQ(legend(svg), (std::vector<std::string>{"train_loss", "val_loss"}));

  const auto train = series_elements(svg, "train_loss", "polyline");
  const auto val = series_elements(svg, "val_loss", "polyline");
  ASSERT_EQ(train.size(), 1u);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(polyline_points(*train[0]).size(), 4u);
  EXPECT_EQ(polyline_points(*val[0]).size(), 2u);
  // Distinct colours, the legend's swatch in the series' colour.
  EXPECT_NE(train[0]->attribute("stroke"), val[0]->attribute("stroke"));
  std::vector<std::string> colours;
  for (const auto* entry : svg.with_class("legend-entry")) {
    colours.push_back(entry->child("line")->attribute("stroke"));
  }
  EXPECT_EQ(colours,
            (std::vector<std::string>{train[0]->attribute("stroke"), val[0]->attribute("stroke")}));
}

TEST(LineChart, TicksForAKnownRangeAndPointsOnThem) {
  LineChart chart({.x_label = "step"});
  chart.add_series("loss", {0, 5, 10}, {0.3, 1.1, 2.3});
  const XmlElement svg = parse(chart);
  // x: 0..10 in steps of 2 (712 px wide: about 7 ticks asked); y: 0.3..2.3 in steps of 0.5.
  EXPECT_EQ(texts(svg.with_class("x-tick")),
            (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  EXPECT_EQ(texts(svg.with_class("y-tick")),
            (std::vector<std::string>{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5"}));
  // The axis ends are the frame's edges.
  const XmlElement& frame = *svg.with_class("frame").at(0);
  const double left = std::stod(frame.attribute("x")), top = std::stod(frame.attribute("y"));
  const double right = left + std::stod(frame.attribute("width"));
  const double bottom = top + std::stod(frame.attribute("height"));
  const AxisMap x = x_axis(svg), y = y_axis(svg);
  EXPECT_NEAR(x.p0, left, 0.01);
  EXPECT_NEAR(x.p1, right, 0.01);
  EXPECT_NEAR(y.p0, bottom, 0.01);
  EXPECT_NEAR(y.p1, top, 0.01);
  EXPECT_NEAR(left, 64, 0.01);  // the fixed left margin that lines stacked charts up
  EXPECT_NEAR(right, 800 - 24, 0.01);

  const auto points = polyline_points(*series_elements(svg, "loss", "polyline").at(0));
  ASSERT_EQ(points.size(), 3u);
  const std::vector<std::pair<double, double>> data = {{0, 0.3}, {5, 1.1}, {10, 2.3}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(points[i].first, x(data[i].first), 0.01) << i;
    EXPECT_NEAR(points[i].second, y(data[i].second), 0.01) << i;
  }
}

TEST(LineChart, LogAxesTickAtDecades) {
  LineChart chart({.log_x = true, .log_y = true});
  chart.add_series("lr", {1e-6, 1e-4, 1e-2}, {0.001, 0.05, 0.9});
  const XmlElement svg = parse(chart);
  EXPECT_EQ(texts(svg.with_class("x-tick")),
            (std::vector<std::string>{"1e-06", "1e-05", "0.0001", "0.001", "0.01"}));
  EXPECT_EQ(texts(svg.with_class("y-tick")),
            (std::vector<std::string>{"0.001", "0.01", "0.1", "1"}));
  const AxisMap x = x_axis(svg, true), y = y_axis(svg, true);
  const auto points = polyline_points(*series_elements(svg, "lr", "polyline").at(0));
  ASSERT_EQ(points.size(), 3u);
  // 1e-4 is halfway along a 1e-6..1e-2 log axis.
  EXPECT_NEAR(points[1].first, (x.p0 + x.p1) / 2, 0.01);
  EXPECT_NEAR(points[1].second, y(0.05), 0.01);
  EXPECT_NEAR(points[2].second, y(0.9), 0.01);
}

TEST(LineChart, UndrawablePointsLeaveGaps) {
  LineChart chart;
  chart.add_series("loss", {0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, kNaN, 3, 4, kInf, 5, -kInf, 6});
  const XmlElement svg = parse(chart);
  const auto lines = series_elements(svg, "loss", "polyline");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(polyline_points(*lines[0]).size(), 2u);  // 0, 1
  EXPECT_EQ(polyline_points(*lines[1]).size(), 2u);  // 3, 4
  // 6 and 8 each stand alone between gaps: dots.
  const auto dots = series_elements(svg, "loss", "circle");
  ASSERT_EQ(dots.size(), 2u);
  const AxisMap x = x_axis(svg);
  EXPECT_NEAR(std::stod(dots[0]->attribute("cx")), x(6), 0.01);
  EXPECT_NEAR(std::stod(dots[1]->attribute("cx")), x(8), 0.01);
  // The y axis spans the finite values only.
  EXPECT_EQ(svg.with_class("y-tick").front()->text, "1");
  EXPECT_EQ(svg.with_class("y-tick").back()->text, "6");
}

TEST(LineChart, NonPositiveValuesAreGapsOnALogAxis) {
  LineChart chart({.log_y = true});
  chart.add_series("lr", {0, 1, 2, 3, 4}, {0.1, 0.01, 0.0, -1, 0.001});
  const XmlElement svg = parse(chart);
  const auto lines = series_elements(svg, "lr", "polyline");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(polyline_points(*lines[0]).size(), 2u);
  EXPECT_EQ(series_elements(svg, "lr", "circle").size(), 1u);
  // Two decades: 2 and 5 are ticked too.
  EXPECT_EQ(texts(svg.with_class("y-tick")),
            (std::vector<std::string>{"0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1"}));
}

TEST(LineChart, SeriesWithoutDataAreListedAsNoData) {
  LineChart chart;
  chart.add_series("loss", {0, 1}, {1.0, 0.5});
  chart.add_series("empty", {}, {});
  chart.add_series("all nan", {0, 1}, {kNaN, kNaN});
  const XmlElement svg = parse(chart);
  EXPECT_EQ(legend(svg),
            (std::vector<std::string>{"loss", "empty (no data)", "all nan (no data)"}));
  EXPECT_TRUE(series_elements(svg, "empty", "polyline").empty());
  EXPECT_TRUE(series_elements(svg, "all nan", "polyline").empty());
  EXPECT_TRUE(series_elements(svg, "all nan", "circle").empty());
  EXPECT_TRUE(svg.with_class("no-data").empty());  // something is drawn

  LineChart nothing({.log_x = true});
  nothing.add_series("loss", {}, {});
  const XmlElement bare = parse(nothing);
  EXPECT_EQ(texts(bare.with_class("no-data")), std::vector<std::string>{"no data"});
  EXPECT_EQ(legend(bare), std::vector<std::string>{"loss (no data)"});
  EXPECT_EQ(texts(bare.with_class("x-tick")).front(), "1");  // a bare 1..10 log axis
  EXPECT_EQ(texts(bare.with_class("x-tick")).back(), "10");

  EXPECT_NO_THROW(XmlReader::parse(LineChart().to_svg()));  // no series at all
}

TEST(LineChart, TextIsEscaped) {
  const std::string nasty = "a<b & \"c\" 'd'>";
  LineChart chart({.title = nasty, .x_label = "</text>", .y_label = "&amp;"});
  chart.add_series(nasty, {0, 1}, {0, 1});
  chart.add_series("bad\xff utf8\x01", {0, 1}, {1, 0});
  chart.set_marker(0.5, "<best>");
  const XmlElement svg = parse(chart);  // throws if anything was left raw
  EXPECT_EQ(svg.child("title")->text, nasty);
  EXPECT_EQ(svg.with_class("title").at(0)->text, nasty);
  EXPECT_EQ(svg.with_class("x-label").at(0)->text, "</text>");
  EXPECT_EQ(svg.with_class("y-label").at(0)->text, "&amp;");
  EXPECT_EQ(legend(svg), (std::vector<std::string>{nasty, "bad\uFFFD utf8\uFFFD"}));
  EXPECT_EQ(series_elements(svg, nasty, "polyline").size(), 1u);  // the attribute round-trips
  EXPECT_EQ(svg.with_class("marker").at(0)->child("text")->text, "<best>");
}

TEST(LineChart, MarkerIsAVerticalLineWithItsLabel) {
  LineChart chart({.log_x = true});
  chart.add_series("loss", {1e-5, 1e-4, 1e-3, 1e-2}, {2.0, 1.0, 0.5, 3.0});
  chart.set_marker(3e-4, "suggested lr = 0.0003");
  const XmlElement svg = parse(chart);
  const auto markers = svg.with_class("marker");
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0]->attribute("data-x"), "0.0003");
  const XmlElement& line = *markers[0]->child("line");
  EXPECT_EQ(line.attribute("x1"), line.attribute("x2"));
  EXPECT_NEAR(std::stod(line.attribute("x1")), x_axis(svg, true)(3e-4), 0.01);
  EXPECT_EQ(markers[0]->child("text")->text, "suggested lr = 0.0003");

  // Outside the data, the axis widens to show it; a second call replaces the first.
  chart.set_marker(0.5, "far");
  const XmlElement wider = parse(chart);
  ASSERT_EQ(wider.with_class("marker").size(), 1u);
  EXPECT_EQ(texts(wider.with_class("x-tick")).back(), "1");
}

TEST(LineChart, XRangeOptionWidensTheAxis) {
  LineChart chart({.x_min = 0.0, .x_max = 100.0});
  chart.add_series("val_acc", {40, 60}, {0.5, 0.7});
  const XmlElement svg = parse(chart);
  EXPECT_EQ(svg.with_class("x-tick").front()->text, "0");
  EXPECT_EQ(svg.with_class("x-tick").back()->text, "100");
}

TEST(LineChart, ManySeriesGetDashesThenAreCountedAsMore) {
  LineChart chart({.width = 400, .height = 200});
  for (int k = 0; k < 40; ++k) chart.add_series(fmt::format("series_{}", k), {0, 1}, {0, 1.0 * k});
  const XmlElement svg = parse(chart);
  const auto first = series_elements(svg, "series_0", "polyline").at(0);
  const auto eleventh = series_elements(svg, "series_10", "polyline").at(0);
  EXPECT_EQ(first->attribute("stroke"), eleventh->attribute("stroke"));
  EXPECT_TRUE(first->attribute("stroke-dasharray").empty());
  EXPECT_FALSE(eleventh->attribute("stroke-dasharray").empty());
  // Every series is drawn; the legend keeps to 200 / 4 / 18 = 2 rows and counts the rest.
  EXPECT_EQ(svg.with_class("series").size(), 40u);
  const size_t shown = svg.with_class("legend-entry").size();
  ASSERT_LT(shown, 40u);
  EXPECT_GT(shown, 2u);
  EXPECT_EQ(texts(svg.with_class("legend-more")),
            std::vector<std::string>{fmt::format("+{} more", 40 - shown)});
  std::set<std::string> rows;
  for (const auto* entry : svg.with_class("legend-entry"))
    rows.insert(entry->child("line")->attribute("y1"));
  EXPECT_EQ(rows.size(), 2u);
}

TEST(LineChart, LongNamesAreShortenedInTheLegendOnly) {
  LineChart chart({.width = 300, .height = 200});
  const std::string name(200, 'k');
  chart.add_series(name, {0, 1}, {0, 1});
  const XmlElement svg = parse(chart);
  const XmlElement& entry = *svg.with_class("legend-entry").at(0);
  EXPECT_EQ(entry.child("title")->text, name);
  EXPECT_LT(entry.child("text")->text.size(), 60u);
  EXPECT_TRUE(entry.child("text")->text.ends_with("…"));
  EXPECT_EQ(series_elements(svg, name, "polyline").size(), 1u);
}

TEST(LineChart, BadInputIsAConfigErrorWithAClearMessage) {
  try {
    LineChart chart({.width = 100, .height = 100});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "LineChart(width=100, height=100): the size must be between 240 × 160 and "
                 "20000 × 20000 pixels");
  }
  LineChart chart({.log_x = true});
  try {
    chart.add_series("loss", {1, 2, 3}, {1, 2});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "LineChart::add_series(\"loss\"): 3 x values but 2 y values; give one x per y");
  }
  try {
    chart.set_marker(0, "zero");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "LineChart::set_marker(0, \"zero\"): the x axis cannot show 0 (a log axis needs "
                 "x > 0)");
  }
  LineChart linear;
  EXPECT_THROW(linear.set_marker(kNaN, "nan"), ConfigError);
  EXPECT_NO_THROW(linear.set_marker(-3, "negative is fine on a linear axis"));
}

class LineChartSave : public testing::TempDirTest {};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(LineChartSave, WritesTheDocumentAndReplacesAtomically) {
  LineChart chart({.title = "t"});
  chart.add_series("loss", {0, 1}, {1, 0});
  const fs::path path = dir_ / "chart.svg";
  {
    std::ofstream old(path);
    old << "an older chart";
  }
  // A reader that opened the old file keeps reading the old file: the new one was renamed over
  // it, not written into it.
  std::ifstream reader(path, std::ios::binary);
  chart.save(path.string());
  EXPECT_EQ(read(path), chart.to_svg());
  std::ostringstream seen;
  seen << reader.rdbuf();
  EXPECT_EQ(seen.str(), "an older chart");
  // The temporary file was renamed into place: the directory holds the chart alone.
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(dir_)) entries.push_back(entry.path().filename());
  EXPECT_EQ(entries, std::vector<std::string>{"chart.svg"});
  // A new file gets the usual permissions (0666 less the umask), not mkstemp's 0600.
  const mode_t mask = ::umask(022);
  ::umask(mask);
  EXPECT_EQ(fs::status(path).permissions(), static_cast<fs::perms>(0666 & ~mask));
}

TEST_F(LineChartSave, FailureNamesThePathAndLeavesNothingBehind) {
  LineChart chart;
  const fs::path missing = dir_ / "no_such_dir" / "chart.svg";
  try {
    chart.save(missing.string());
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("cannot write {}: No such file or directory; check that its directory "
                          "exists and is writable",
                          missing.string()));
  }
  try {
    chart.save(dir_.string());  // a directory where the file should go
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("cannot write {}: Is a directory; check that its directory exists "
                          "and is writable",
                          dir_.string()));
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace fulgur
