#include "fulgur/plot/metrics_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

enum class Group { kLoss, kMetric, kLearningRate, kMomentum };

struct GroupInfo {
  Group group;
  const char* title;  // the panel's title when a group shares one
  bool log_y;
};

constexpr std::array<GroupInfo, 4> kGroups = {{
    {Group::kLoss, "loss", false},
    {Group::kMetric, "metrics", false},
    {Group::kLearningRate, "learning rate", true},
    {Group::kMomentum, "momentum", false},
}};

Group group_of(const std::string& key) {
  if (key.starts_with("lr-") || key == "lr") {
    return key.ends_with("-momentum") ? Group::kMomentum : Group::kLearningRate;
  }
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("loss") != std::string::npos ? Group::kLoss : Group::kMetric;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

ChartStack plot_metrics(const MetricsCsv& table, const MetricsPlotOptions& options) {
  if (table.keys().empty()) {
    throw DataError(fmt::format("{} has no metric columns to plot (only step{})", table.source(),
                                table.has_epoch() ? " and epoch" : ""));
  }
  std::vector<std::string> keys;
  std::set<std::string> seen;  // a key asked for twice is drawn once
  for (const auto& key : options.keys.empty() ? table.keys() : options.keys) {
    if (!table.find(key)) {
      throw ConfigError(fmt::format("{} has no column \"{}\"; its metrics are: {}", table.source(),
                                    key, joined(table.keys())));
    }
    if (seen.insert(key).second) keys.push_back(key);
  }
  // The reading order; stable, so a group keeps the order the keys came in.
  std::stable_sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
    return group_of(a) < group_of(b);
  });

  ChartStack stack({.title = options.title});
  // Every panel spans the run's steps, so that one step sits at one x all the way down.
  std::optional<double> first_step, last_step;
  if (table.rows() > 0) {
    const auto [lo, hi] = std::minmax_element(table.steps().begin(), table.steps().end());
    first_step = *lo;
    last_step = *hi;
  }
  auto chart_for = [&](const std::string& title, bool log_y) {
    return LineChart({.title = title,
                      .x_label = "step",
                      .log_y = log_y,
                      .width = options.width,
                      .height = options.panel_height,
                      .x_min = first_step,
                      .x_max = last_step});
  };
  auto add_series = [&](LineChart& chart, const std::string& key) {
    const MetricPoints& points = *table.find(key);
    chart.add_series(key, points.steps, points.values);
  };

  if (options.panels == MetricPanels::kPerKey) {
    for (const auto& key : keys) {
      LineChart chart = chart_for(key, group_of(key) == Group::kLearningRate);
      add_series(chart, key);
      stack.add(std::move(chart));
    }
    return stack;
  }
  for (const GroupInfo& info : kGroups) {
    std::optional<LineChart> chart;
    for (const auto& key : keys) {
      if (group_of(key) != info.group) continue;
      if (!chart) chart = chart_for(info.title, info.log_y);
      add_series(*chart, key);
    }
    if (chart) stack.add(std::move(*chart));
  }
  return stack;
}

}  // namespace fulgur
