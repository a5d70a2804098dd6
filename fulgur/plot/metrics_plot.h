#pragma once
// The charts of a training run: a MetricsCsv's columns drawn against the step, as a
// ChartStack of panels in the order a person reads a run: losses (keys containing "loss"),
// then the other metrics, then learning rates (keys starting "lr-", LearningRateMonitor's
// names) on a log y axis, their "-momentum" companions last on a linear one. Within a
// group, keys keep their order: the one asked for, else the file's.
#include <string>
#include <vector>

#include "fulgur/plot/chart_stack.h"
#include "fulgur/plot/metrics_csv.h"

namespace fulgur {

enum class MetricPanels {
  kPerKey,    // one panel per key
  kPerGroup,  // one panel per group (all losses together, …), a series per key
};

struct MetricsPlotOptions {
  std::vector<std::string> keys;  // the columns to draw; empty: every metric column
  MetricPanels panels = MetricPanels::kPerKey;
  std::string title;  // above the panels; empty: none
  int width = 800;
  int panel_height = 280;
};

// Raises ConfigError for a key the table does not have (naming the ones it has) or a size
// LineChart refuses, DataError when the table has no metric column at all.
ChartStack plot_metrics(const MetricsCsv& table, const MetricsPlotOptions& options = {});

}  // namespace fulgur
