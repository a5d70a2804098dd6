// `fulgur`: command-line tools for fulgur runs.
//
//   fulgur plot <version dir | metrics.csv> [-o out.svg] [-k key,...] [--by-group]
//
// `plot` draws the curves a CSVLogger wrote (losses, metrics, learning rates, against the
// step) into one SVG a browser opens: <dir>/metrics.svg by default, next to the CSV.
// Every failure ends in one line on stderr, `fulgur: error: <message>`, and exit code 2 for a
// usage mistake (unknown command or flag, a key the file lacks) or 1 for a file that cannot be
// read or written. Deliberately free of LibTorch: it builds in seconds and starts instantly.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/plot/metrics_csv.h"
#include "fulgur/plot/metrics_plot.h"

#ifndef FULGUR_VERSION
#define FULGUR_VERSION "unknown"
#endif

namespace {

namespace fs = std::filesystem;

constexpr const char* kProgram = "fulgur";
constexpr int kRuntimeFailure = 1;
constexpr int kUsageError = 2;
const std::vector<std::string> kCommands = {"plot"};

struct PlotArgs {
  std::string input;
  std::string output;
  std::vector<std::string> keys;
  bool by_group = false;
  int width = fulgur::MetricsPlotOptions{}.width;
  int panel_height = fulgur::MetricsPlotOptions{}.panel_height;
};

// A usage mistake the parser cannot see (it reads an unknown command as a stray argument).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The metrics.csv a path names: the file itself, or the one in a version directory.
fs::path metrics_file(const fs::path& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;  // a missing file fails when read, by name
  const fs::path csv = input / "metrics.csv";
  if (fs::exists(csv, ec)) return csv;
  // A logger root (lightning_logs/) holds the version directories, not a table.
  std::vector<std::string> versions;
  for (const auto& entry : fs::directory_iterator(input, ec)) {
    std::error_code entry_ec;
    if (entry.is_directory(entry_ec) && fs::exists(entry.path() / "metrics.csv", entry_ec))
      versions.push_back(entry.path().filename().string());
  }
  std::sort(versions.begin(), versions.end());
  std::string hint = "give a version directory (lightning_logs/version_N) or a metrics.csv file";
  if (!versions.empty()) {
    hint = fmt::format("it holds runs in {}; give one of them, e.g. {}", fmt::join(versions, ", "),
                       (input / versions.back()).string());
  }
  throw fulgur::DataError(fmt::format("{} has no metrics.csv; {}", input.string(), hint));
}

int plot(const PlotArgs& args) {
  const fs::path csv = metrics_file(args.input);
  const fs::path output =
      args.output.empty() ? fs::path(csv).replace_extension(".svg") : fs::path(args.output);
  if (output.lexically_normal() == csv.lexically_normal()) {
    throw UsageError(
        fmt::format("the output {} is the metrics file itself; give another -o", output.string()));
  }
  const fulgur::MetricsCsv table = fulgur::MetricsCsv::read(csv.string());
  fulgur::MetricsPlotOptions options;
  options.keys = args.keys;
  options.panels = args.by_group ? fulgur::MetricPanels::kPerGroup : fulgur::MetricPanels::kPerKey;
  options.title = csv.string();
  options.width = args.width;
  options.panel_height = args.panel_height;
  const fulgur::ChartStack charts = fulgur::plot_metrics(table, options);
  charts.save(output.string());
  std::cout << fmt::format("{}: {} panel{} from {} rows written to {}\n", kProgram, charts.size(),
                           charts.size() == 1 ? "" : "s", table.rows(), output.string());
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app("Tools for fulgur runs.", kProgram);
  app.set_version_flag("--version", FULGUR_VERSION);
  app.require_subcommand(1);

  PlotArgs plot_args;
  CLI::App* plot_command = app.add_subcommand(
      "plot",
      "Draw a run's metrics.csv (losses, metrics, learning rates against the step) into an SVG "
      "file.");
  plot_command
      ->add_option("path", plot_args.input,
                   "A version directory (lightning_logs/version_N) or a metrics.csv")
      ->required();
  plot_command->add_option("-o,--output", plot_args.output,
                           "The SVG to write (default: metrics.svg next to the metrics.csv)");
  plot_command
      ->add_option("-k,--keys", plot_args.keys,
                   "Only these columns, comma-separated (default: every metric)")
      ->delimiter(',');
  plot_command->add_flag("--by-group", plot_args.by_group,
                         "One panel per group (losses, metrics, learning rates) instead of one "
                         "per key");
  plot_command->add_option("--width", plot_args.width, "Width of the image in pixels")
      ->check(CLI::Range(240, 20000))
      ->capture_default_str();
  plot_command->add_option("--panel-height", plot_args.panel_height, "Height of each panel")
      ->check(CLI::Range(160, 20000))
      ->capture_default_str();

  // CLI11 would call an unknown command a stray positional argument; name it as what it is.
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(kCommands.begin(), kCommands.end(), argv[1]) == kCommands.end()) {
    throw UsageError(fmt::format("unknown command \"{}\"; the commands are: {} (see {} --help)",
                                 argv[1], fmt::join(kCommands, ", "), kProgram));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << kProgram << " " << FULGUR_VERSION << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    const std::string help =
        fmt::format("{}{} --help", kProgram, plot_command->parsed() ? " plot" : "");
    throw UsageError(fmt::format("{} (see {})", e.what(), help));
  }
  return plot(plot_args);
}

// One line, whatever the message carried.
std::string one_line(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

int fail(const std::string& message, int code) {
  std::cout.flush();
  std::cerr << kProgram << ": error: " << one_line(message) << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    return fail(e.what(), kUsageError);
  } catch (const fulgur::ConfigError& e) {
    return fail(e.what(), kUsageError);
  } catch (const fulgur::Error& e) {
    return fail(e.what(), kRuntimeFailure);
  } catch (const std::exception& e) {
    return fail(e.what(), kRuntimeFailure);
  } catch (...) {
    return fail("unknown failure", kRuntimeFailure);
  }
}
