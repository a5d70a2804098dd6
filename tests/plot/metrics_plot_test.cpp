#include "fulgur/plot/metrics_plot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/plot/chart_stack.h"
#include "plot/svg_reader.h"

namespace fulgur {
namespace {

using testing::polyline_points;
using testing::XmlElement;
using testing::XmlReader;
using Strings = std::vector<std::string>;

// A run's table: train_loss every step, validation every 5, lr with a drop, momentum.
MetricsCsv run_table() {
  std::string csv = "epoch,lr-SGD,lr-SGD-momentum,step,train_loss,val_acc,val_loss\n";
  for (int step = 0; step < 10; ++step) {
    csv +=
        fmt::format("{},{},0.9,{},{},,\n", step / 5, step < 5 ? 0.1 : 0.01, step, 2.0 - 0.1 * step);
    if (step % 5 == 4)
      csv += fmt::format("{},,,{},,{},{}\n", step / 5, 0.5 + 0.1 * step, step, 1.5);
  }
  return MetricsCsv::parse(csv, "v/metrics.csv");
}

struct Panel {
  std::string transform;
  std::string title;
  Strings legend;
  Strings x_ticks;
  Strings y_ticks;
  std::vector<std::pair<std::string, size_t>> series_points;  // (name, points) per element
};

std::vector<Panel> panels(const std::string& svg_text) {
  const XmlElement svg = XmlReader::parse(svg_text);
  std::vector<Panel> out;
  for (const XmlElement* g : svg.with_class("panel")) {
    Panel p;
    p.transform = g->attribute("transform");
    p.title = g->with_class("title").at(0)->text;
    for (const auto* e : g->with_class("legend-entry")) p.legend.push_back(e->child("text")->text);
    for (const auto* e : g->with_class("x-tick")) p.x_ticks.push_back(e->text);
    for (const auto* e : g->with_class("y-tick")) p.y_ticks.push_back(e->text);
    for (const auto* e : g->with_class("series")) {
      p.series_points.emplace_back(e->attribute("data-series"),
                                   e->name == "circle" ? 1 : polyline_points(*e).size());
    }
    out.push_back(std::move(p));
  }
  return out;
}

TEST(PlotMetrics, OnePanelPerKeyLossesFirstLearningRatesLast) {
  const ChartStack stack = plot_metrics(run_table(), {.title = "v/metrics.csv"});
  EXPECT_EQ(stack.size(), 5u);
  EXPECT_EQ(stack.width(), 800);
  EXPECT_EQ(stack.height(), 36 + 5 * 280);
  const std::string svg_text = stack.to_svg();
  const XmlElement svg = XmlReader::parse(svg_text);
  EXPECT_EQ(svg.attribute("height"), "1436");
  EXPECT_EQ(svg.with_class("stack-title").at(0)->text, "v/metrics.csv");

  const auto p = panels(svg_text);
  ASSERT_EQ(p.size(), 5u);
  Strings titles;
  for (const auto& panel : p) titles.push_back(panel.title);
  EXPECT_EQ(titles, (Strings{"train_loss", "val_loss", "val_acc", "lr-SGD", "lr-SGD-momentum"}));
  EXPECT_EQ(p[0].transform, "translate(0 36)");
  EXPECT_EQ(p[1].transform, "translate(0 316)");
  EXPECT_EQ(p[4].transform, "translate(0 1156)");
  for (const auto& panel : p) {
    EXPECT_EQ(panel.legend, Strings{panel.title});
    // Every panel spans the run's steps, 0..9: the same x axis all the way down.
    EXPECT_EQ(panel.x_ticks, (Strings{"0", "2", "4", "6", "8", "10"})) << panel.title;
  }
  EXPECT_EQ(p[0].series_points, (std::vector<std::pair<std::string, size_t>>{{"train_loss", 10}}));
  EXPECT_EQ(p[1].series_points, (std::vector<std::pair<std::string, size_t>>{{"val_loss", 2}}));
  // The learning rate on a log axis, the momentum on a linear one.
  EXPECT_EQ(p[3].y_ticks, (Strings{"0.01", "0.02", "0.05", "0.1"}));
  EXPECT_EQ(p[4].y_ticks, (Strings{"0.8", "0.9", "1.0"}));  // 0.9 ± 0.09
}

TEST(PlotMetrics, PanelsPerGroup) {
  const ChartStack stack =
      plot_metrics(run_table(), {.panels = MetricPanels::kPerGroup, .panel_height = 200});
  EXPECT_EQ(stack.height(), 4 * 200);  // no title
  const auto p = panels(stack.to_svg());
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].title, "loss");
  EXPECT_EQ(p[0].legend, (Strings{"train_loss", "val_loss"}));
  EXPECT_EQ(p[1].title, "metrics");
  EXPECT_EQ(p[1].legend, (Strings{"val_acc"}));
  EXPECT_EQ(p[2].title, "learning rate");
  EXPECT_EQ(p[2].legend, (Strings{"lr-SGD"}));
  EXPECT_EQ(p[3].title, "momentum");
  EXPECT_EQ(p[0].transform, "translate(0 0)");
}

TEST(PlotMetrics, ChosenKeysInReadingOrderOnce) {
  const ChartStack stack =
      plot_metrics(run_table(), {.keys = {"lr-SGD", "val_acc", "train_loss", "val_acc"}});
  Strings titles;
  for (const auto& panel : panels(stack.to_svg())) titles.push_back(panel.title);
  EXPECT_EQ(titles, (Strings{"train_loss", "val_acc", "lr-SGD"}));
}

TEST(PlotMetrics, AnEmptyColumnIsAPanelWithNoData) {
  const MetricsCsv table = MetricsCsv::parse("loss,step,val_acc\n1,0,\n0.5,1,\n", "m.csv");
  const auto p = panels(plot_metrics(table).to_svg());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].legend, Strings{"val_acc (no data)"});
  EXPECT_TRUE(p[1].series_points.empty());
}

TEST(PlotMetrics, UnknownKeyIsAConfigErrorListingTheKeys) {
  try {
    plot_metrics(run_table(), {.keys = {"train_los"}});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "v/metrics.csv has no column \"train_los\"; its metrics are: lr-SGD, "
                 "lr-SGD-momentum, train_loss, val_acc, val_loss");
  }
}

TEST(PlotMetrics, NoMetricColumnsIsADataError) {
  try {
    plot_metrics(MetricsCsv::parse("epoch,step\n0,0\n", "m.csv"));
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_STREQ(e.what(), "m.csv has no metric columns to plot (only step and epoch)");
  }
}

TEST(ChartStack, EmptyStackIsStillADocument) {
  const ChartStack stack;
  const XmlElement svg = XmlReader::parse(stack.to_svg());
  EXPECT_EQ(svg.with_class("no-data").at(0)->text, "no charts");
  EXPECT_EQ(svg.attribute("width"), "240");
}

TEST(ChartStack, WidestChartSetsTheWidth) {
  ChartStack stack({.title = "a & b"});
  stack.add(LineChart({.width = 300, .height = 200}));
  stack.add(LineChart({.width = 500, .height = 160}));
  EXPECT_EQ(stack.width(), 500);
  EXPECT_EQ(stack.height(), 36 + 200 + 160);
  const XmlElement svg = XmlReader::parse(stack.to_svg());
  EXPECT_EQ(svg.child("title")->text, "a & b");
  EXPECT_EQ(svg.attribute("viewBox"), "0 0 500 396");
  const auto g = svg.with_class("panel");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[1]->attribute("transform"), "translate(0 236)");
  EXPECT_EQ(g[0]->with_class("background").at(0)->attribute("width"), "300");  // at the left
}

}  // namespace
}  // namespace fulgur
